// POST /v1/responses and GET /v1/models/{id} through the official `openai` client (only baseURL and apiKey
// changed) on a listening server with the built-in extractive answerer: grounded output text whose [n] markers
// are file_citation annotations, usage, the exact streaming event sequence, previous_response_id (the caller's
// own only), max_output_tokens, and the 400s that say why the extractive answerer cannot take tools or JSON.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import type { Response as OpenAIResponse, ResponseStreamEvent } from 'openai/resources/responses/responses'
import { createTestApp, type TestApp } from '../harness'
import { add } from '../search/search.fixtures'

let t: TestApp
let url: string
let server: ReturnType<typeof Bun.serve>
beforeAll(async () => {
  t = await createTestApp({ env: { EMBEDDING_PROVIDER: 'hash', EMBEDDING_DIMENSIONS: '64' } })
  server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: t.app.fetch })
  url = `http://127.0.0.1:${server.port}`
})
afterAll(async () => {
  await server?.stop(true)
  await t?.close()
})

const BACKUPS = {
  title: 'Backup policy',
  body: 'Backups of the billing database run nightly at 02:00 UTC. They are kept for 35 days in cold storage.',
}
const QUESTION = 'How long are billing database backups kept?'
type Grounded = OpenAIResponse & { citations: { index: number; document_id: string; title: string | null }[] }

async function userWithBackups() {
  const user = await t.signUp()
  const doc = await add(t, user, BACKUPS)
  await add(t, user, { title: 'Lunch', body: 'The canteen serves soup on Fridays.' })
  return { user, doc, client: new OpenAI({ baseURL: `${url}/v1`, apiKey: user.key, maxRetries: 0 }) }
}

async function rejection(call: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await call
  } catch (error) {
    expect(error).toBeInstanceOf(OpenAI.APIError)
    return error as InstanceType<typeof OpenAI.APIError>
  }
  throw new Error('expected the call to fail')
}

describe('client.responses.create', () => {
  test('input as a string: a completed response whose output text cites [1], a file_citation annotation naming the document at the marker, usage', async () => {
    const { doc, client } = await userWithBackups()
    const response = (await client.responses.create({ model: 'service-rag', input: QUESTION })) as Grounded
    expect(response.object).toBe('response')
    expect(response.id).toStartWith('resp_')
    expect(response.status).toBe('completed')
    expect(response.model).toBe('service-rag')
    expect(response.output_text).toContain('35 days')
    const [message] = response.output
    if (message?.type !== 'message') throw new Error('not a message')
    const part = message.content[0]!
    if (part.type !== 'output_text') throw new Error('not output_text')
    expect(part.text).toBe(response.output_text)
    // One per marker, at the marker, as OpenAI annotates its own citations.
    const markers = [...part.text.matchAll(/\[1\]/g)].map((m) => m.index)
    expect(markers.length).toBeGreaterThan(0)
    expect(part.annotations).toEqual(markers.map((index) => ({ type: 'file_citation', file_id: doc.id, filename: BACKUPS.title, index })))
    expect(response.citations.map((c) => c.document_id)).toEqual([doc.id])
    expect(response.usage!.input_tokens).toBeGreaterThan(0)
    expect(response.usage!.output_tokens).toBeGreaterThan(0)
    expect(response.usage!.total_tokens).toBe(response.usage!.input_tokens + response.usage!.output_tokens)
  })

  test('input as a message list with instructions: the last user message is the question, the answer still rests on the documents', async () => {
    const { doc, client } = await userWithBackups()
    const response = (await client.responses.create({
      model: 'service-rag',
      instructions: 'Be terse.',
      input: [
        { role: 'user', content: 'Hello' },
        { role: 'assistant', content: 'Hi! Ask me about your documents.' },
        { role: 'user', content: [{ type: 'input_text', text: QUESTION }] },
      ],
    })) as Grounded
    expect(response.output_text).toContain('35 days')
    expect(response.instructions).toBe('Be terse.')
    expect(response.citations.map((c) => c.document_id)).toEqual([doc.id])
  })

  test('streaming: the Responses event sequence in order, numbered; the deltas add up to the text of the completed response', async () => {
    const { doc, client } = await userWithBackups()
    const events: ResponseStreamEvent[] = []
    for await (const event of await client.responses.create({ model: 'service-rag', input: QUESTION, stream: true })) events.push(event)
    const types = events.map((e) => e.type).filter((type, i, all) => type !== all[i - 1])
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.annotation.added',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ])
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i))
    expect(events.filter((e) => e.type === 'response.output_text.delta').length).toBeGreaterThan(1)
    const text = events.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : [])).join('')
    const completed = events.at(-1) as Extract<ResponseStreamEvent, { type: 'response.completed' }>
    expect(completed.response.output_text ?? (completed.response.output[0] as { content: { text: string }[] }).content[0]!.text).toBe(text)
    expect(text).toContain('35 days')
    expect((completed.response as Grounded).citations.map((c) => c.document_id)).toEqual([doc.id])
    expect(completed.response.usage!.output_tokens).toBeGreaterThan(0)
    const created = events[0] as Extract<ResponseStreamEvent, { type: 'response.created' }>
    expect(created.response).toMatchObject({ id: completed.response.id, status: 'in_progress', output: [] })
  })

  test('on the wire: text/event-stream of `event: <type>` + `data:` blocks, no [DONE]', async () => {
    const { user } = await userWithBackups()
    const res = await fetch(`${url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'service-rag', input: QUESTION, stream: true }),
    })
    expect(res.headers.get('content-type')).toStartWith('text/event-stream')
    const blocks = (await res.text()).split('\n\n').filter(Boolean)
    for (const block of blocks) {
      const [event, data] = block.split('\n')
      expect(JSON.parse(data!.slice('data: '.length)).type).toBe(event!.slice('event: '.length))
    }
    expect(blocks.at(-1)).toStartWith('event: response.completed\n')
  })

  test('previous_response_id continues the conversation; another user’s id and an unknown id are 404; store: false keeps nothing', async () => {
    const { client } = await userWithBackups()
    const first = await client.responses.create({ model: 'service-rag', input: 'What runs nightly at 02:00?' })
    const second = await client.responses.create({ model: 'service-rag', input: QUESTION, previous_response_id: first.id })
    expect(second.previous_response_id).toBe(first.id)
    expect(second.output_text).toContain('35 days')

    const other = await userWithBackups()
    for (const id of [first.id, 'resp_0000']) {
      const error = await rejection(other.client.responses.create({ model: 'service-rag', input: QUESTION, previous_response_id: id }))
      expect(error).toBeInstanceOf(OpenAI.NotFoundError)
      expect(error.message).toContain(id)
    }
    const unstored = await client.responses.create({ model: 'service-rag', input: QUESTION, store: false })
    expect((unstored as { store?: boolean }).store).toBe(false)
    expect(
      await rejection(client.responses.create({ model: 'service-rag', input: QUESTION, previous_response_id: unstored.id })),
    ).toBeInstanceOf(OpenAI.NotFoundError)
  })

  test('an item_reference to an output item of the caller’s stored response is resolved; another user’s item is a 404', async () => {
    const { client } = await userWithBackups()
    const first = await client.responses.create({ model: 'service-rag', input: 'What runs nightly at 02:00?' })
    const input = [
      { role: 'user' as const, content: 'What runs nightly at 02:00?' },
      { type: 'item_reference' as const, id: first.output[0]!.id! },
      { role: 'user' as const, content: QUESTION },
    ]
    expect((await client.responses.create({ model: 'service-rag', input })).output_text).toContain('35 days')
    const other = await userWithBackups()
    const error = await rejection(other.client.responses.create({ model: 'service-rag', input }))
    expect(error).toBeInstanceOf(OpenAI.NotFoundError)
    expect(error.message).toContain(first.output[0]!.id!)
  })

  test('max_output_tokens: status incomplete with reason max_output_tokens, the text cut to the limit; streaming ends with response.incomplete', async () => {
    const { client } = await userWithBackups()
    const whole = await client.responses.create({ model: 'service-rag', input: QUESTION })
    const cut = await client.responses.create({ model: 'service-rag', input: QUESTION, max_output_tokens: 5 })
    expect(cut.status).toBe('incomplete')
    expect(cut.incomplete_details).toEqual({ reason: 'max_output_tokens' })
    expect(cut.usage!.output_tokens).toBeLessThanOrEqual(5)
    expect(whole.output_text.startsWith(cut.output_text)).toBe(true)
    expect(cut.output_text.length).toBeLessThan(whole.output_text.length)
    const events: ResponseStreamEvent[] = []
    for await (const event of await client.responses.create({ model: 'service-rag', input: QUESTION, max_output_tokens: 5, stream: true }))
      events.push(event)
    expect(events.at(-1)!.type).toBe('response.incomplete')
  })

  test('the extractive answerer refuses, with the reason, function tools, a JSON schema and a turn ending in a tool result', async () => {
    const { client } = await userWithBackups()
    const tools = [
      {
        type: 'function' as const,
        name: 'get_weather',
        parameters: { type: 'object', properties: { city: { type: 'string' } } },
        strict: false,
      },
    ]
    const withTools = await rejection(client.responses.create({ model: 'service-rag', input: QUESTION, tools }))
    expect(withTools).toBeInstanceOf(OpenAI.BadRequestError)
    expect(withTools.message).toContain('tools: service-rag is the built-in extractive answerer')
    expect(withTools.message).toContain('CHAT_MODEL')
    const json = await rejection(
      client.responses.create({
        model: 'service-rag',
        input: QUESTION,
        text: { format: { type: 'json_schema', name: 'answer', schema: { type: 'object', properties: { days: { type: 'number' } } } } },
      }),
    )
    expect(json.message).toContain('text.format')
    const toolResult = await rejection(
      client.responses.create({
        model: 'service-rag',
        input: [
          { role: 'user', content: QUESTION },
          { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{}' },
          { type: 'function_call_output', call_id: 'call_1', output: 'sunny' },
        ],
      }),
    )
    expect(toolResult.message).toContain('cannot continue from tool results')
    // tool_choice "none" needs no tools: answered.
    expect((await client.responses.create({ model: 'service-rag', input: QUESTION, tools, tool_choice: 'none' })).status).toBe('completed')
    // OpenAI-hosted tools are named as such.
    const hosted = await rejection(client.responses.create({ model: 'service-rag', input: QUESTION, tools: [{ type: 'web_search' }] }))
    expect(hosted.message).toMatch(/tools\[0\]\.(type|name): .*OpenAI hosts.*web_search/)
  })

  test('an unknown model is a 404 naming it', async () => {
    const { client } = await userWithBackups()
    const error = await rejection(client.responses.create({ model: 'llama3.1', input: QUESTION }))
    expect(error).toBeInstanceOf(OpenAI.NotFoundError)
    expect(error.message).toContain('llama3.1')
  })
})

describe('client.models.retrieve', () => {
  test('service-rag and service-embed by id, or by an alias; any other id is a NotFoundError naming it', async () => {
    const { client } = await userWithBackups()
    expect(await client.models.retrieve('service-rag')).toMatchObject({ id: 'service-rag', object: 'model', owned_by: 'service' })
    expect(await client.models.retrieve('service-embed')).toMatchObject({ id: 'service-embed', object: 'model', available: true })
    expect(await client.models.retrieve('gpt-4o')).toMatchObject({ id: 'service-rag' })
    expect(await client.models.retrieve('text-embedding-3-small')).toMatchObject({ id: 'service-embed' })
    const error = await rejection(client.models.retrieve('llama3.1'))
    expect(error).toBeInstanceOf(OpenAI.NotFoundError)
    expect(error.message).toContain('llama3.1')
  })
})

describe('chat completions limits and refusals', () => {
  test('max_tokens and max_completion_tokens: finish_reason length, completion_tokens within the limit', async () => {
    const { client } = await userWithBackups()
    for (const limit of [{ max_tokens: 4 }, { max_completion_tokens: 4 }]) {
      const c = await client.chat.completions.create({ model: 'service-rag', messages: [{ role: 'user', content: QUESTION }], ...limit })
      expect(c.choices[0]!.finish_reason).toBe('length')
      expect(c.usage!.completion_tokens).toBeLessThanOrEqual(4)
    }
  })

  test('tools and response_format json_schema are refused by the extractive answerer with the reason', async () => {
    const { client } = await userWithBackups()
    const messages = [{ role: 'user' as const, content: QUESTION }]
    const tools = await rejection(
      client.chat.completions.create({
        model: 'service-rag',
        messages,
        tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } }],
      }),
    )
    expect(tools).toBeInstanceOf(OpenAI.BadRequestError)
    expect(tools.message).toContain('cannot call your tools')
    const json = await rejection(
      client.chat.completions.create({
        model: 'service-rag',
        messages,
        response_format: { type: 'json_schema', json_schema: { name: 'a', schema: { type: 'object' } } },
      }),
    )
    expect(json.message).toContain('response_format')
    expect(json.message).toContain('cannot answer in JSON')
  })
})
