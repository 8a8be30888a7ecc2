// POST /v1/completions, OpenAI's legacy text completions, through the official `openai` client's
// completions.create (what LlamaIndex's OpenAILike calls by default): the prompt is the question, answered from
// the caller's documents with citations, streaming and not; one choice per prompt of an array; echo, stop and
// max_tokens; the 400s for what is not supported here; rate limits and key scopes as chat completions.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import type { Completion } from 'openai/resources/completions'
import { listen, QUESTION, rejection, userWithBackups, type Listening } from './v1.fixtures'

type Grounded = Completion & { choices: (Completion['choices'][number] & { citations: { document_id: string }[] })[] }

let s: Listening
let limited: Listening
beforeAll(async () => {
  s = await listen()
  limited = await listen({ env: { PLAN_FREE_ASK_PER_MIN: '2' } })
})
afterAll(async () => {
  await s?.stop()
  await limited?.stop()
})

async function caller(server = s) {
  const { user, doc } = await userWithBackups(server)
  return { user, doc, client: new OpenAI({ baseURL: server.baseURL, apiKey: user.key, maxRetries: 0 }) }
}

async function badRequest(call: Promise<unknown>, naming: string) {
  const error = await rejection(call)
  expect(error).toBeInstanceOf(OpenAI.BadRequestError)
  expect((error as Error).message).toContain(naming)
}

describe('client.completions.create', () => {
  test('a prompt: a text_completion whose text answers from the documents, cites [1], with citations and usage', async () => {
    const { client, doc } = await caller()
    const completion = (await client.completions.create({ model: 'service-rag', prompt: QUESTION, max_tokens: 200 })) as Grounded
    expect(completion.id).toStartWith('cmpl-')
    expect(completion.object).toBe('text_completion')
    expect(completion.model).toBe('service-rag')
    expect(completion.created).toBeGreaterThan(0)
    expect(completion.choices).toHaveLength(1)
    const [choice] = completion.choices
    expect(choice).toMatchObject({ index: 0, logprobs: null, finish_reason: 'stop' })
    expect(choice!.text).toContain('35 days')
    expect(choice!.text).toContain('[1]')
    expect(choice!.citations.map((c) => c.document_id)).toEqual([doc.id])
    const usage = completion.usage!
    expect(usage.prompt_tokens).toBeGreaterThan(0)
    expect(usage.completion_tokens).toBeGreaterThan(0)
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens)
  })

  test('streaming: text_completion chunks whose text adds up to the non-streamed answer, finish_reason last, usage, then [DONE]', async () => {
    const { client, doc } = await caller()
    const whole = await client.completions.create({ model: 'service-rag', prompt: QUESTION })
    const chunks: Grounded[] = []
    const stream = await client.completions.create({
      model: 'service-rag',
      prompt: QUESTION,
      stream: true,
      stream_options: { include_usage: true },
    })
    for await (const chunk of stream) chunks.push(chunk as Grounded)
    expect(chunks.every((c) => c.object === 'text_completion' && c.id === chunks[0]!.id)).toBe(true)
    const pieces = chunks.flatMap((c) => c.choices)
    expect(pieces.filter((p) => p.text).length).toBeGreaterThan(1)
    expect(pieces.map((p) => p.text).join('')).toBe(whole.choices[0]!.text)
    const last = pieces.at(-1)!
    expect(last.finish_reason).toBe('stop')
    expect(last.citations.map((c) => c.document_id)).toEqual([doc.id])
    expect(pieces.slice(0, -1).every((p) => p.finish_reason === null)).toBe(true)
    expect(chunks.at(-1)!.usage!.completion_tokens).toBeGreaterThan(0)

    // On the wire, as OpenAI ends it.
    const { user } = await caller()
    const res = await fetch(`${s.baseURL}/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'service-rag', prompt: QUESTION, stream: true }),
    })
    expect(res.headers.get('content-type')).toStartWith('text/event-stream')
    expect((await res.text()).trimEnd()).toEndWith('data: [DONE]')
  })

  test('an array of prompts: one choice per prompt, in order, streaming and not', async () => {
    const { client } = await caller()
    const prompt = [QUESTION, 'When do the backups run?']
    const completion = await client.completions.create({ model: 'service-rag', prompt })
    expect(completion.choices.map((c) => c.index)).toEqual([0, 1])
    expect(completion.choices[0]!.text).toContain('35 days')
    expect(completion.choices[1]!.text).toContain('02:00')
    const texts = ['', '']
    for await (const chunk of await client.completions.create({ model: 'service-rag', prompt, stream: true }))
      for (const c of chunk.choices) texts[c.index] += c.text
    expect(texts).toEqual(completion.choices.map((c) => c.text))
  })

  test('echo starts the text with the prompt; max_tokens cuts the text with finish_reason length', async () => {
    const { client } = await caller()
    const echoed = await client.completions.create({ model: 'service-rag', prompt: QUESTION, echo: true })
    expect(echoed.choices[0]!.text).toStartWith(QUESTION)
    expect(echoed.choices[0]!.text).toContain('35 days')
    const cut = await client.completions.create({ model: 'service-rag', prompt: QUESTION, max_tokens: 4 })
    expect(cut.choices[0]!.finish_reason).toBe('length')
    expect(cut.usage!.completion_tokens).toBeLessThanOrEqual(4)
  })

  test('what is not supported here is a 400 that says so: token arrays, n, best_of, logprobs, suffix, an empty prompt, too many prompts', async () => {
    const { client } = await caller()
    const ask = { model: 'service-rag', prompt: QUESTION }
    await badRequest(client.completions.create({ ...ask, prompt: [1, 2, 3] }), 'token arrays are not supported')
    await badRequest(client.completions.create({ ...ask, prompt: [[1, 2]] }), 'token arrays are not supported')
    await badRequest(client.completions.create({ ...ask, n: 2 }), 'n: only 1 is supported')
    await badRequest(client.completions.create({ ...ask, best_of: 3 }), 'best_of: only 1 is supported')
    await badRequest(client.completions.create({ ...ask, logprobs: 2 }), 'logprobs: not available here')
    await badRequest(client.completions.create({ ...ask, suffix: ' in days.' }), 'suffix: not supported')
    // The schema says a prompt has text, so a generated client knows it too.
    await badRequest(client.completions.create({ ...ask, prompt: '  ' }), 'prompt must be a string with text (the question)')
    await badRequest(client.completions.create({ ...ask, prompt: [QUESTION, ''] }), 'prompt must be a string with text (the question)')
    await badRequest(client.completions.create({ ...ask, prompt: Array(17).fill(QUESTION) }), 'an array of 1 to 16 of them')
    // What these clients send by default is accepted: n 1, logprobs null, an empty suffix, a user.
    const ok = await client.completions.create({ ...ask, n: 1, best_of: 1, logprobs: null, suffix: '', user: 'u-1', stop: ['\n\n'] })
    expect(ok.choices).toHaveLength(1)
  })

  test('an unknown model is a 404 naming it, as on chat completions', async () => {
    const { client } = await caller()
    const error = await rejection(client.completions.create({ model: 'llama3.1', prompt: QUESTION }))
    expect(error).toBeInstanceOf(OpenAI.NotFoundError)
    expect((error as Error).message).toContain('llama3.1')
  })

  test("a client's default model id (LangChain's completions default) is an alias: answered, naming service-rag", async () => {
    const { client } = await caller()
    const completion = await client.completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: QUESTION })
    expect(completion.model).toBe('service-rag')
    expect(completion.choices[0]!.text.length).toBeGreaterThan(0)
  })
})

describe('limits and scopes', () => {
  test('the ask rate limit, shared with chat completions, each prompt counting once: a 429 with Retry-After', async () => {
    const { client } = await caller(limited)
    await client.completions.create({ model: 'service-rag', prompt: [QUESTION, QUESTION] })
    const error = await rejection(client.completions.create({ model: 'service-rag', prompt: QUESTION }))
    expect(error).toBeInstanceOf(OpenAI.RateLimitError)
    expect((error as InstanceType<typeof OpenAI.APIError>).headers?.get('retry-after')).toBeTruthy()
    expect(
      await rejection(client.chat.completions.create({ model: 'service-rag', messages: [{ role: 'user', content: QUESTION }] })),
    ).toBeInstanceOf(OpenAI.RateLimitError)
  })

  test('a read-only key may ask, as on chat completions; no key is a 401', async () => {
    const { user } = await caller()
    const readOnly = await s.t.signUp({ scopes: ['read'] })
    const widget = new OpenAI({ baseURL: s.baseURL, apiKey: readOnly.key, maxRetries: 0 })
    expect((await widget.completions.create({ model: 'service-rag', prompt: QUESTION })).object).toBe('text_completion')
    const anonymous = new OpenAI({ baseURL: s.baseURL, apiKey: 'not-a-key', maxRetries: 0 })
    expect(await rejection(anonymous.completions.create({ model: 'service-rag', prompt: QUESTION }))).toBeInstanceOf(
      OpenAI.AuthenticationError,
    )
    expect(user.key).not.toBe(readOnly.key)
  })
})
