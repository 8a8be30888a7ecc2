// The Vercel AI SDK against a listening server, only baseURL and apiKey changed: createOpenAI()(id) in its
// default mode (the Responses API), .chat(id), and @ai-sdk/openai-compatible — generateText, streamText, embed,
// embedMany, a multi-turn conversation (the SDK refers to earlier answers by item_reference), and a tool loop
// through service-rag on the local fake provider (CHAT_MODEL), plus how an error reaches the SDK's caller.
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { createOpenAI } from '@ai-sdk/openai'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { APICallError, embed, embedMany, generateText, jsonSchema, stepCountIs, streamText, tool, type LanguageModel } from 'ai'
import { hashEmbed } from '../../src/embedding/hash-embedding'
import { reply } from '../fakes/openai-chat'
import { guardNetwork, listen, QUESTION, rejection, userWithBackups, type Listening } from './v1.fixtures'

let s: Listening
let p: Listening
let network: ReturnType<typeof guardNetwork>
beforeAll(async () => {
  network = guardNetwork()
  ;[s, p] = await Promise.all([listen(), listen({ provider: true })])
})
afterEach(() => p.fake!.reset())
afterAll(async () => {
  network.restore()
  await s?.stop()
  await p?.stop()
})

/** The three ways a user points the AI SDK at us, each with only baseURL and apiKey. */
const models = (server: Listening, apiKey: string): [string, LanguageModel][] => {
  const openai = createOpenAI({ baseURL: server.baseURL, apiKey })
  return [
    ['createOpenAI()(id), the Responses API', openai('service-rag')],
    ['createOpenAI().chat(id)', openai.chat('service-rag')],
    ['@ai-sdk/openai-compatible', createOpenAICompatible({ name: 'memory', baseURL: server.baseURL, apiKey }).chatModel('service-rag')],
  ]
}

describe('generateText and streamText', () => {
  test('each mode answers from the document with [1], streamed in several pieces to the same text', async () => {
    const { user } = await userWithBackups(s)
    for (const [mode, model] of models(s, user.key)) {
      const whole = await generateText({ model, prompt: QUESTION })
      expect(whole.text, mode).toContain('35 days')
      expect(whole.text, mode).toContain('[1]')
      expect(whole.finishReason, mode).toBe('stop')
      expect(whole.usage.outputTokens, mode).toBeGreaterThan(0)
      const streamed = streamText({ model, prompt: QUESTION })
      const pieces: string[] = []
      for await (const piece of streamed.textStream) pieces.push(piece)
      expect(pieces.length, mode).toBeGreaterThan(1)
      expect(pieces.join(''), mode).toBe(whole.text)
    }
  })

  test('the Responses API mode: the citations arrive as the SDK’s sources, naming the document', async () => {
    const { user, doc } = await userWithBackups(s)
    const model = models(s, user.key)[0]![1]
    const result = await generateText({ model, prompt: QUESTION })
    expect(result.sources.length).toBeGreaterThan(0)
    for (const source of result.sources)
      expect(source).toMatchObject({ sourceType: 'document', title: 'Backup policy', providerMetadata: { openai: { fileId: doc.id } } })
    const streamed = streamText({ model, prompt: QUESTION })
    expect((await streamed.sources).map((x) => (x as { providerMetadata?: any }).providerMetadata?.openai?.fileId)).toContain(doc.id)
  })

  test('a second turn with the first turn’s messages: the SDK refers to the stored answer by item_reference, and it is answered', async () => {
    const { user } = await userWithBackups(s)
    // Only to watch what the SDK sends: the same fetch, recording each request body.
    const sent: any[] = []
    const model = createOpenAI({
      baseURL: s.baseURL,
      apiKey: user.key,
      fetch: ((input: RequestInfo | URL, init?: RequestInit) => (
        sent.push(JSON.parse(String(init?.body))), fetch(input, init)
      )) as typeof fetch,
    })('service-rag')
    const first = await generateText({ model, prompt: 'When do billing database backups run?' })
    const second = await generateText({
      model,
      messages: [
        { role: 'user', content: 'When do billing database backups run?' },
        ...first.response.messages,
        { role: 'user', content: QUESTION },
      ],
    })
    expect(second.text).toContain('35 days')
    expect(sent[1].input.filter((item: { type?: string }) => item.type === 'item_reference')).toEqual([
      { type: 'item_reference', id: expect.stringMatching(/^msg_/) },
    ])
  })

  test('maxOutputTokens is honoured in every mode: finish reason length', async () => {
    const { user } = await userWithBackups(s)
    for (const [mode, model] of models(s, user.key))
      expect((await generateText({ model, prompt: QUESTION, maxOutputTokens: 16 })).finishReason, mode).toBe('length')
  })
})

describe('embeddings', () => {
  test('embed and embedMany through @ai-sdk/openai-compatible and createOpenAI().embedding: the service-embed vectors', async () => {
    const user = await s.t.signUp()
    const compatible = createOpenAICompatible({ name: 'memory', baseURL: s.baseURL, apiKey: user.key }).embeddingModel('service-embed')
    const openai = createOpenAI({ baseURL: s.baseURL, apiKey: user.key }).embedding('service-embed')
    for (const model of [compatible, openai]) {
      const one = await embed({ model, value: 'hello world' })
      one.embedding.forEach((v, i) => expect(v).toBeCloseTo(hashEmbed('hello world', 64)[i]!, 6))
      const many = await embedMany({ model, values: ['first text', 'second text'] })
      expect(many.embeddings).toHaveLength(2)
      many.embeddings[1]!.forEach((v, i) => expect(v).toBeCloseTo(hashEmbed('second text', 64)[i]!, 6))
    }
  })
})

describe('tools through service-rag on a configured chat model', () => {
  test('each mode: the provider asks for the tool, the SDK runs it, the result goes back, the final answer arrives', async () => {
    const { user } = await userWithBackups(p)
    for (const [mode, model] of models(p, user.key)) {
      p.fake!.script(
        reply.toolCall('get_weather', { city: 'Oslo' }, { id: `call_${mode.length}` }),
        reply.text('Sunny in Oslo; backups are kept 35 days [1].'),
      )
      const before = p.fake!.chatRequests().length
      const ran: unknown[] = []
      const result = await generateText({
        model,
        prompt: QUESTION,
        stopWhen: stepCountIs(3),
        tools: {
          get_weather: tool({
            description: 'Weather of a city',
            inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }),
            execute: async (input) => (ran.push(input), 'sunny'),
          }),
        },
      })
      expect(ran, mode).toEqual([{ city: 'Oslo' }])
      expect(result.steps[0]!.finishReason, mode).toBe('tool-calls')
      expect(result.text, mode).toBe('Sunny in Oslo; backups are kept 35 days [1].')
      const [, second] = p.fake!.chatRequests().slice(before)
      expect(second!.body.messages.at(-1), mode).toEqual({
        role: 'tool',
        tool_call_id: `call_${mode.length}`,
        content: expect.stringContaining('sunny'),
      })
    }
  })
})

describe('errors', () => {
  test("an unknown model: an APICallError with status 404 whose message is ours: the AI SDK reads OpenAI's { error: { message } }", async () => {
    const { user } = await userWithBackups(s)
    const openai = createOpenAI({ baseURL: s.baseURL, apiKey: user.key })
    for (const model of [openai('llama3.1'), openai.chat('llama3.1')]) {
      const error = await rejection(generateText({ model, prompt: QUESTION, maxRetries: 0 }))
      expect(APICallError.isInstance(error)).toBe(true)
      const e = error as APICallError
      expect(e.statusCode).toBe(404)
      // Its parser reads OpenAI's { error: { message } } (a plain { error: "<message>" } fell back to the status text).
      expect(e.message).toBe('model llama3.1 does not exist; use service-rag')
      expect(JSON.parse(e.responseBody!).error.code).toBe('not_found')
    }
  })
})

// Last: every client above ran by now.
test('nothing was sent anywhere but the local servers', () => {
  expect(network.outbound).toEqual([])
})
