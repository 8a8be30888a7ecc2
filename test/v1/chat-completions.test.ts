// /v1 through the official `openai` client, pointed at a listening server with only baseURL and apiKey changed:
// grounded chat completions (streaming and not) with citations and usage, embeddings and models, the errors
// the client maps to its own classes (404, 401, 400, 429 with Retry-After), and answers that only ever cite
// the caller's own documents.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionMessageParam } from 'openai/resources/chat/completions'
import { hashEmbed } from '../../src/embedding/hash-embedding'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { add } from '../search/search.fixtures'

interface Citation {
  index: number
  document_id: string
  title: string | null
  url: string | null
  excerpt: string | null
}
/** What this service adds to OpenAI's shapes. */
type GroundedCompletion = ChatCompletion & { citations: Citation[] }
type GroundedChunk = ChatCompletionChunk & { citations?: Citation[] }

interface Listening {
  t: TestApp
  url: string
  stop(): Promise<void>
}

async function listen(env: Record<string, string>): Promise<Listening> {
  const t = await createTestApp({ env })
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: t.app.fetch })
  return {
    t,
    url: `http://127.0.0.1:${server.port}`,
    async stop() {
      await server.stop(true)
      await t.close()
    },
  }
}

let s: Listening
let limited: Listening
beforeAll(async () => {
  s = await listen({ EMBEDDING_PROVIDER: 'hash', EMBEDDING_DIMENSIONS: '64' })
  limited = await listen({ EMBEDDING_PROVIDER: 'none', PLAN_FREE_ASK_PER_MIN: '2' })
})
afterAll(async () => {
  await s?.stop()
  await limited?.stop()
})

const clientOf = (server: Listening, apiKey: string, options: { maxRetries?: number } = {}) =>
  new OpenAI({ baseURL: `${server.url}/v1`, apiKey, ...options })

const BACKUPS = {
  title: 'Backup policy',
  body: 'Backups of the billing database run nightly at 02:00 UTC. They are kept for 35 days in cold storage.',
}
const QUESTION = 'How long are billing database backups kept?'
const ask = (content = QUESTION): ChatCompletionMessageParam[] => [{ role: 'user', content }]

/** A user with the backup policy and an unrelated note. */
async function userWithBackups(server: Listening = s) {
  const user = await server.t.signUp()
  const doc = await add(server.t, user, BACKUPS)
  await add(server.t, user, { title: 'Lunch', body: 'The canteen serves soup on Fridays.' })
  return { user, doc, client: clientOf(server, user.key) }
}

/** The error a call rejects with (the test fails if it resolves). */
async function rejection(call: Promise<unknown>): Promise<unknown> {
  try {
    await call
  } catch (error) {
    return error
  }
  throw new Error('expected the call to fail')
}

/** Reads a stream to its end, as a client does: the text, the finish chunk, the usage chunk, every chunk. */
async function readStream(stream: AsyncIterable<ChatCompletionChunk>) {
  const chunks: GroundedChunk[] = []
  for await (const chunk of stream) chunks.push(chunk)
  const content = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')
  const finish = chunks.filter((c) => c.choices[0]?.finish_reason)
  const usage = chunks.filter((c) => c.usage)
  return { chunks, content, finish, usage }
}

describe('grounded chat completions', () => {
  test("a question answered from the user's own document: the content cites [1], citations[0] is that document, usage is counted", async () => {
    const { doc, client } = await userWithBackups()
    const completion = (await client.chat.completions.create({ model: 'service-rag', messages: ask() })) as GroundedCompletion

    expect(completion.object).toBe('chat.completion')
    expect(completion.model).toBe('service-rag')
    expect(completion.id).toStartWith('chatcmpl-')
    const [choice] = completion.choices
    expect(choice!.message.role).toBe('assistant')
    expect(choice!.finish_reason).toBe('stop')
    expect(choice!.message.content).toContain('35 days')
    expect(choice!.message.content).toContain('[1]')
    expect(completion.citations[0]).toEqual({
      index: 1,
      document_id: doc.id,
      title: BACKUPS.title,
      url: null,
      excerpt: expect.stringContaining('35 days'),
    })
    // Only what the content cites is listed: the lunch note is not.
    expect(completion.citations).toHaveLength(1)
    expect(completion.usage!.prompt_tokens).toBeGreaterThan(0)
    expect(completion.usage!.completion_tokens).toBeGreaterThan(0)
    expect(completion.usage!.total_tokens).toBe(completion.usage!.prompt_tokens + completion.usage!.completion_tokens)
  })

  test('streaming: the chunks add up to the same answer, the finish chunk carries the citations, include_usage adds a usage chunk, the stream ends', async () => {
    const { doc, client } = await userWithBackups()
    const whole = (await client.chat.completions.create({ model: 'service-rag', messages: ask() })) as GroundedCompletion
    const stream = await client.chat.completions.create({
      model: 'service-rag',
      messages: ask(),
      stream: true,
      stream_options: { include_usage: true },
    })
    const { chunks, content, finish, usage } = await readStream(stream)

    expect(content).toBe(whole.choices[0]!.message.content!)
    expect(chunks.filter((c) => c.choices[0]?.delta.content).length).toBeGreaterThan(1)
    for (const c of chunks) expect(c).toMatchObject({ id: chunks[0]!.id, object: 'chat.completion.chunk', model: 'service-rag' })
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant')

    expect(finish).toHaveLength(1)
    expect(finish[0]!.choices[0]!.finish_reason).toBe('stop')
    expect(finish[0]!.citations).toEqual(whole.citations)
    expect(finish[0]!.citations![0]!.document_id).toBe(doc.id)

    // The usage chunk comes last, with no choices, as OpenAI sends it.
    expect(usage).toHaveLength(1)
    expect(chunks.at(-1)).toBe(usage[0]!)
    expect(usage[0]!.choices).toEqual([])
    expect(usage[0]!.usage!.completion_tokens).toBeGreaterThan(0)
    expect(usage[0]!.usage!.total_tokens).toBe(usage[0]!.usage!.prompt_tokens + usage[0]!.usage!.completion_tokens)
  })

  test('on the wire the stream is text/event-stream of data: lines ending with data: [DONE]; without include_usage there is no usage chunk', async () => {
    const { user } = await userWithBackups()
    const res = await fetch(`${s.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'service-rag', messages: ask(), stream: true }),
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toStartWith('text/event-stream')
    const events = (await res.text()).split('\n\n').filter(Boolean)
    for (const e of events) expect(e).toStartWith('data: ')
    expect(events.at(-1)).toBe('data: [DONE]')
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.slice('data: '.length)) as GroundedChunk)
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('stop')
    expect(chunks.some((c) => c.usage)).toBe(false)
  })

  test("the client's system message and earlier turns are accepted; the answer still rests on the documents", async () => {
    const { doc, client } = await userWithBackups()
    const completion = (await client.chat.completions.create({
      model: 'service-rag',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Hello' },
        { role: 'assistant', content: 'Hi! Ask me about your documents.' },
        { role: 'user', content: QUESTION },
      ],
    })) as GroundedCompletion
    expect(completion.choices[0]!.message.content).toContain('35 days')
    expect(completion.citations.map((c) => c.document_id)).toEqual([doc.id])
  })
})

describe('embeddings and models through the same client', () => {
  test('client.embeddings.create: one vector per input, in order, equal to service-embed (hash-64) for each text', async () => {
    const user = await s.t.signUp()
    const client = clientOf(s, user.key)
    const input = ['hello world', 'the ferry reached the harbour']
    // The client asks for base64 by default and decodes it; float is asked for explicitly.
    for (const encoding_format of [undefined, 'float'] as const) {
      const res = await client.embeddings.create({ model: 'service-embed', input, ...(encoding_format ? { encoding_format } : {}) })
      expect(res.object).toBe('list')
      expect(res.model).toBe('service-embed')
      expect(res.data.map((d) => d.index)).toEqual([0, 1])
      res.data.forEach((d, i) => {
        const expected = hashEmbed(input[i]!, 64)
        expect(d.embedding).toHaveLength(64)
        d.embedding.forEach((v, j) => expect(v).toBeCloseTo(expected[j]!, 6))
      })
      expect(res.usage.prompt_tokens).toBeGreaterThan(0)
    }
  })

  test('client.models.list: service-rag and service-embed', async () => {
    const user = await s.t.signUp()
    const models = await clientOf(s, user.key).models.list()
    expect(models.data.map((m) => m.id)).toEqual(['service-rag', 'service-embed'])
    for (const m of models.data) expect(m.object).toBe('model')
  })
})

describe('errors the client understands', () => {
  test("an unknown model: NotFoundError (404) whose body is OpenAI's { error: { message naming it, type, param, code } }", async () => {
    const { client } = await userWithBackups()
    const error = await rejection(client.chat.completions.create({ model: 'llama3.1', messages: ask() }))
    expect(error).toBeInstanceOf(OpenAI.NotFoundError)
    const e = error as InstanceType<typeof OpenAI.NotFoundError>
    expect(e.status).toBe(404)
    // The client exposes the body's `error` object, and its `code` as the error's own.
    expect(e.error).toEqual({ message: expect.stringContaining('llama3.1'), type: 'invalid_request_error', param: null, code: 'not_found' })
    expect(e.code).toBe('not_found')
    expect(e.message).toBe('404 model llama3.1 does not exist; use service-rag')
  })

  test('a key that does not exist: AuthenticationError (401)', async () => {
    const client = clientOf(s, `svc_${'x'.repeat(40)}`)
    const error = await rejection(client.chat.completions.create({ model: 'service-rag', messages: ask() }))
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError)
    expect((error as InstanceType<typeof OpenAI.AuthenticationError>).status).toBe(401)
    expect((error as InstanceType<typeof OpenAI.AuthenticationError>).code).toBe('unauthenticated')
    expect(await rejection(client.models.list())).toBeInstanceOf(OpenAI.AuthenticationError)
  })

  test('a conversation whose last message is not from the user: BadRequestError (400) saying so', async () => {
    const { client } = await userWithBackups()
    const error = await rejection(
      client.chat.completions.create({
        model: 'service-rag',
        messages: [
          { role: 'user', content: QUESTION },
          { role: 'assistant', content: 'They are kept for 35 days.' },
        ],
      }),
    )
    expect(error).toBeInstanceOf(OpenAI.BadRequestError)
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).status).toBe(400)
    expect((error as Error).message).toContain('last message must be a user message')
  })

  test("another user's workspace_id is a 404, the same as a workspace that does not exist", async () => {
    const { client } = await userWithBackups()
    const other = await s.t.signUp()
    const { body } = await s.t.json('GET', '/api/workspaces', { key: other.key })
    const theirs: string = body.data[0].id
    for (const workspace_id of [theirs, crypto.randomUUID()]) {
      // workspace_id is this service's extension of the request; the client sends extra fields as given.
      const error = await rejection(
        client.chat.completions.create({
          model: 'service-rag',
          messages: ask(),
          workspace_id,
        } as OpenAI.ChatCompletionCreateParamsNonStreaming),
      )
      expect(error).toBeInstanceOf(OpenAI.NotFoundError)
      expect((error as Error).message).toContain(workspace_id)
    }
  })

  test('past the plan limit (2 a minute) the key gets RateLimitError (429) with Retry-After; another key is unaffected; a minute later it works again', async () => {
    const a = await limited.t.signUp()
    const b = await limited.t.signUp()
    // No retries: the client would otherwise wait out the Retry-After and try again by itself.
    const clientA = clientOf(limited, a.key, { maxRetries: 0 })
    const clientB = clientOf(limited, b.key, { maxRetries: 0 })
    const call = (client: OpenAI) => client.chat.completions.create({ model: 'service-rag', messages: ask() })
    await call(clientA)
    await call(clientA)
    const error = await rejection(call(clientA))
    expect(error).toBeInstanceOf(OpenAI.RateLimitError)
    const e = error as InstanceType<typeof OpenAI.RateLimitError>
    expect(e.status).toBe(429)
    expect(Number(e.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(e.headers.get('ratelimit-remaining')).toBe('0')
    expect(e.message).toContain('rate limit')

    expect((await call(clientB)).choices).toHaveLength(1)
    limited.t.clock.advance(61_000)
    expect((await call(clientA)).choices).toHaveLength(1)
  })
})

describe('only the caller’s documents', () => {
  const SECRET = { title: 'Vault codes', body: 'The vault under the old mill opens with code 7341 on Tuesdays.' }

  async function twoUsers(): Promise<{ a: TestUser; b: TestUser; aDoc: { id: string }; bDoc: { id: string } }> {
    const a = await s.t.signUp()
    const b = await s.t.signUp()
    const aDoc = await add(s.t, a, {
      title: 'Mill visit',
      body: 'We visited the old mill on Tuesday; the vault there is closed to visitors.',
    })
    const bDoc = await add(s.t, b, SECRET)
    return { a, b, aDoc, bDoc }
  }

  test("another user's matching document never appears in citations, streaming or not", async () => {
    const { a, aDoc, bDoc } = await twoUsers()
    const client = clientOf(s, a.key)
    const question = 'What code opens the vault under the old mill on Tuesdays?'
    const whole = (await client.chat.completions.create({ model: 'service-rag', messages: ask(question) })) as GroundedCompletion
    const streamed = await readStream(await client.chat.completions.create({ model: 'service-rag', messages: ask(question), stream: true }))
    const cited = [...whole.citations, ...(streamed.finish[0]!.citations ?? [])].map((c) => c.document_id)
    expect(cited.length).toBeGreaterThan(0)
    expect(new Set(cited)).toEqual(new Set([aDoc.id]))
    expect(cited).not.toContain(bDoc.id)
    for (const text of [whole.choices[0]!.message.content!, streamed.content]) expect(text).not.toContain('7341')
  })

  test('a user with no documents gets an answer that says nothing was found, with no citations — not the other user’s', async () => {
    await twoUsers()
    const empty = await s.t.signUp()
    const whole = (await clientOf(s, empty.key).chat.completions.create({
      model: 'service-rag',
      messages: ask('What code opens the vault under the old mill?'),
    })) as GroundedCompletion
    expect(whole.citations).toEqual([])
    expect(whole.choices[0]!.message.content).not.toContain('7341')
    expect(whole.choices[0]!.message.content).toContain('nothing')
  })
})
