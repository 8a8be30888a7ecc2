// LangChain's ChatOpenAI and OpenAIEmbeddings, and the OpenAI Agents SDK's default run (the Responses API),
// against a listening server with only baseURL and apiKey changed (the Agents SDK takes them as its default
// client; its tracing export is off so nothing leaves the machine), and how each shows an error message.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { ChatOpenAI, OpenAIEmbeddings } from '@langchain/openai'
import { Agent, OpenAIProvider, run, Runner, setDefaultOpenAIClient, setTracingDisabled, tool } from '@openai/agents'
import OpenAI from 'openai'
import { z } from 'zod'
import { hashEmbed } from '../../src/embedding/hash-embedding'
import { reply } from '../fakes/openai-chat'
import { guardNetwork, listen, QUESTION, rejection, userWithBackups, type Listening } from './v1.fixtures'

let s: Listening
let p: Listening
let network: ReturnType<typeof guardNetwork>
beforeAll(async () => {
  network = guardNetwork()
  setTracingDisabled(true)
  ;[s, p] = await Promise.all([listen(), listen({ provider: true })])
})
afterAll(async () => {
  network.restore()
  await s?.stop()
  await p?.stop()
})

/** The SDK resolves its default client once per process; later tests name theirs through a runner. */
const runnerFor = (server: Listening, apiKey: string) =>
  new Runner({ modelProvider: new OpenAIProvider({ openAIClient: new OpenAI({ baseURL: server.baseURL, apiKey, maxRetries: 0 }) }) })

const chat = (server: Listening, apiKey: string, model = 'service-rag') =>
  new ChatOpenAI({ model, apiKey, configuration: { baseURL: server.baseURL }, maxRetries: 0 })

describe('LangChain', () => {
  test('ChatOpenAI.invoke answers from the document with [1] and usage; .stream gives the same text in several chunks', async () => {
    const { user } = await userWithBackups(s)
    const model = chat(s, user.key)
    const answer = await model.invoke(QUESTION)
    expect(answer.content).toContain('35 days')
    expect(answer.content).toContain('[1]')
    expect(answer.usage_metadata!.output_tokens).toBeGreaterThan(0)
    const chunks: string[] = []
    for await (const chunk of await model.stream(QUESTION)) chunks.push(chunk.content as string)
    expect(chunks.filter(Boolean).length).toBeGreaterThan(1)
    expect(chunks.join('')).toBe(answer.content as string)
  })

  test('OpenAIEmbeddings.embedQuery and embedDocuments: the service-embed vectors', async () => {
    const user = await s.t.signUp()
    const embeddings = new OpenAIEmbeddings({ model: 'service-embed', apiKey: user.key, configuration: { baseURL: s.baseURL } })
    const query = await embeddings.embedQuery('hello world')
    query.forEach((v, i) => expect(v).toBeCloseTo(hashEmbed('hello world', 64)[i]!, 6))
    const docs = await embeddings.embedDocuments(['first text', 'second text'])
    expect(docs).toHaveLength(2)
    docs[0]!.forEach((v, i) => expect(v).toBeCloseTo(hashEmbed('first text', 64)[i]!, 6))
  })

  test('with no model named (ChatOpenAI sends gpt-3.5-turbo, OpenAIEmbeddings text-embedding-ada-002): served by service-rag and service-embed', async () => {
    const { user } = await userWithBackups(s)
    const answer = await new ChatOpenAI({ apiKey: user.key, configuration: { baseURL: s.baseURL }, maxRetries: 0 }).invoke(QUESTION)
    expect(answer.content).toContain('35 days')
    expect(answer.response_metadata.model_name).toBe('service-rag')
    const embeddings = new OpenAIEmbeddings({ apiKey: user.key, configuration: { baseURL: s.baseURL } })
    const query = await embeddings.embedQuery('hello world')
    query.forEach((v, i) => expect(v).toBeCloseTo(hashEmbed('hello world', 64)[i]!, 6))
  })

  test('an error shows the service’s message', async () => {
    const { user } = await userWithBackups(s)
    const error = await rejection(chat(s, user.key, 'llama3.1').invoke(QUESTION))
    expect((error as Error).message).toContain('model llama3.1 does not exist')
  })
})

describe('OpenAI Agents SDK', () => {
  test('the default run (Responses API, non-streaming and streaming): the final output is the grounded answer', async () => {
    const { user } = await userWithBackups(s)
    setDefaultOpenAIClient(new OpenAI({ baseURL: s.baseURL, apiKey: user.key }))
    const agent = new Agent({ name: 'Memory', instructions: 'Answer from my documents.', model: 'service-rag' })
    const result = await run(agent, QUESTION)
    expect(result.finalOutput).toContain('35 days')
    expect(result.finalOutput).toContain('[1]')
    const streamed = await run(agent, QUESTION, { stream: true })
    let text = ''
    for await (const piece of streamed.toTextStream()) text += piece
    await streamed.completed
    expect(text).toBe(result.finalOutput!)
    expect(streamed.finalOutput).toBe(result.finalOutput!)
  })

  test('an agent with a function tool, on a configured chat model: the SDK runs the tool and gets the final answer', async () => {
    const { user } = await userWithBackups(p)
    p.fake!.script(
      reply.toolCall('get_weather', { city: 'Oslo' }, { id: 'call_agent1' }),
      reply.text('Sunny; backups are kept 35 days [1].'),
    )
    const ran: string[] = []
    const weather = tool({
      name: 'get_weather',
      description: 'Weather of a city',
      parameters: z.object({ city: z.string() }),
      execute: async ({ city }) => (ran.push(city), 'sunny'),
    })
    const agent = new Agent({ name: 'Memory', instructions: 'Answer from my documents.', model: 'service-rag', tools: [weather] })
    const result = await runnerFor(p, user.key).run(agent, QUESTION)
    expect(ran).toEqual(['Oslo'])
    expect(result.finalOutput).toBe('Sunny; backups are kept 35 days [1].')
    expect(p.fake!.chatRequests().at(-1)!.body.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_agent1', content: 'sunny' })
  })

  test("an agent with no model named (the SDK's default, gpt-5.6-luna here): answered by service-rag", async () => {
    const { user } = await userWithBackups(s)
    const result = await runnerFor(s, user.key).run(new Agent({ name: 'Memory', instructions: 'Answer from my documents.' }), QUESTION)
    expect(result.finalOutput).toContain('35 days')
    expect(result.rawResponses.at(-1)!.providerData).toMatchObject({ model: 'service-rag' })
  })

  test('an error shows the service’s message', async () => {
    const { user } = await userWithBackups(s)
    const error = await rejection(runnerFor(s, user.key).run(new Agent({ name: 'Memory', model: 'claude-sonnet-4' }), QUESTION))
    expect((error as Error).message).toContain('model claude-sonnet-4 does not exist')
  })
})

// Last: every client above ran by now.
test('nothing was sent anywhere but the local servers', () => {
  expect(network.outbound).toEqual([])
})
