// Stored responses through the official `openai` client: responses.retrieve gives back the response as it was
// answered, responses.inputItems.list pages its own input items, responses.delete removes it for good (no
// retrieve, no previous_response_id, not even through a later turn); another user's id is a 404 like a missing
// one, another key of the same user reaches it.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import OpenAI from 'openai'
import { v1Responses } from '../../db/schema'
import { listen, QUESTION, rejection, userWithBackups, type Listening } from './v1.fixtures'

let s: Listening
beforeAll(async () => {
  // Room for a second key of the same user.
  s = await listen({ env: { PLAN_FREE_API_KEYS: '5' } })
})
afterAll(() => s?.stop())

async function caller() {
  const { user, doc } = await userWithBackups(s)
  return { user, doc, client: new OpenAI({ baseURL: s.baseURL, apiKey: user.key, maxRetries: 0 }) }
}

async function notFound(call: Promise<unknown>, naming: string) {
  const error = await rejection(call)
  expect(error).toBeInstanceOf(OpenAI.NotFoundError)
  expect((error as Error).message).toContain(naming)
}

describe('client.responses.retrieve', () => {
  test('gives back the stored response as it was answered: output text, annotations, instructions, usage, citations', async () => {
    const { client, doc } = await caller()
    const created = await client.responses.create({ model: 'service-rag', input: QUESTION, instructions: 'Be terse.' })
    const retrieved = await client.responses.retrieve(created.id)
    expect(retrieved).toEqual(created)
    expect(retrieved.output_text).toContain('35 days')
    expect(retrieved.instructions).toBe('Be terse.')
    expect((retrieved as unknown as { citations: { document_id: string }[] }).citations.map((c) => c.document_id)).toEqual([doc.id])
  })

  test('a streamed response is stored too, and reads back as the completed event carried it', async () => {
    const { client } = await caller()
    let completed: OpenAI.Responses.Response | undefined
    for await (const event of await client.responses.create({ model: 'service-rag', input: QUESTION, stream: true }))
      if (event.type === 'response.completed') completed = event.response
    const retrieved = await client.responses.retrieve(completed!.id)
    expect(retrieved.output).toEqual(completed!.output)
    expect(retrieved.usage).toEqual(completed!.usage)
  })

  test('a response stored before the whole object was kept reads back from its columns', async () => {
    const { client } = await caller()
    const created = await client.responses.create({ model: 'service-rag', input: QUESTION })
    await s.t.deps.db.update(v1Responses).set({ response: null }).where(eq(v1Responses.id, created.id))
    const retrieved = await client.responses.retrieve(created.id)
    expect(retrieved).toMatchObject({
      id: created.id,
      object: 'response',
      status: 'completed',
      model: 'service-rag',
      output: created.output,
    })
    expect(retrieved.output_text).toBe(created.output_text)
  })

  test('store: false, an unknown id and an id of any shape are a 404 naming the id, in the { error } shape', async () => {
    const { client, user } = await caller()
    const unstored = await client.responses.create({ model: 'service-rag', input: QUESTION, store: false })
    for (const id of [unstored.id, 'resp_0000', 'not-a-response-id', crypto.randomUUID()]) await notFound(client.responses.retrieve(id), id)
    const res = await fetch(`${s.baseURL}/responses/nope`, { headers: { authorization: `Bearer ${user.key}` } })
    expect(res.status).toBe(404)
    expect(await res.json()).toMatchObject({ error: { message: 'response nope not found', code: 'not_found' } })
  })
})

describe('client.responses.inputItems.list', () => {
  const input = [
    { role: 'user' as const, content: 'Hello' },
    { role: 'assistant' as const, content: 'Hi! Ask me about your documents.' },
    { role: 'user' as const, content: [{ type: 'input_text' as const, text: QUESTION }] },
  ]

  test("the response's own input items, newest first, messages with text parts and ids; order asc; limit and after page through", async () => {
    const { client, user } = await caller()
    const first = await client.responses.create({ model: 'service-rag', input: 'What runs nightly at 02:00?' })
    const created = await client.responses.create({ model: 'service-rag', input, previous_response_id: first.id })

    const page = await client.responses.inputItems.list(created.id)
    const texts = (items: OpenAI.Responses.ResponseItem[]) =>
      items.map((i) => (i.type === 'message' ? `${i.role}: ${(i.content[0] as { text: string }).text}` : i.type))
    // Only this turn's input, not the conversation it continues.
    expect(texts(page.data)).toEqual([`user: ${QUESTION}`, 'assistant: Hi! Ask me about your documents.', 'user: Hello'])
    expect(page.data.map((i) => i.type === 'message' && i.content[0]!.type)).toEqual(['input_text', 'output_text', 'input_text'])
    expect(new Set(page.data.map((i) => i.id)).size).toBe(3)
    const raw = await s.t.json('GET', `/v1/responses/${created.id}/input_items`, { key: user.key })
    expect(raw.body).toMatchObject({ object: 'list', first_id: page.data[0]!.id, last_id: page.data[2]!.id, has_more: false })

    const asc = await client.responses.inputItems.list(created.id, { order: 'asc' })
    expect(asc.data.map((i) => i.id)).toEqual(page.data.map((i) => i.id).reverse())

    // The client's auto-pagination: one item a page, `after` the last one, until has_more is false.
    const paged: string[] = []
    for await (const item of client.responses.inputItems.list(created.id, { limit: 1 })) paged.push(item.id)
    expect(paged).toEqual(page.data.map((i) => i.id))
    const second = await client.responses.inputItems.list(created.id, { limit: 1, after: page.data[0]!.id })
    expect(second.data.map((i) => i.id)).toEqual([page.data[1]!.id])
    expect(second.has_more).toBe(true)

    const error = await rejection(client.responses.inputItems.list(created.id, { after: 'msg_unknown' }))
    expect(error).toBeInstanceOf(OpenAI.NotFoundError)
    expect((error as Error).message).toContain('msg_unknown')
  })
})

describe('client.responses.delete', () => {
  test("answers OpenAI's delete shape; the response is gone: retrieve, input items, a second delete and previous_response_id are 404", async () => {
    const { client, user } = await caller()
    const created = await client.responses.create({ model: 'service-rag', input: QUESTION })
    const res = await fetch(`${s.baseURL}/responses/${created.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${user.key}` } })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ id: created.id, object: 'response', deleted: true })

    await notFound(client.responses.retrieve(created.id), created.id)
    await notFound(client.responses.inputItems.list(created.id), created.id)
    await notFound(client.responses.delete(created.id), created.id)
    await notFound(client.responses.create({ model: 'service-rag', input: QUESTION, previous_response_id: created.id }), created.id)
  })

  test('through the client; a later turn that continued the deleted response cannot be continued either', async () => {
    const { client } = await caller()
    const first = await client.responses.create({ model: 'service-rag', input: 'What runs nightly at 02:00?' })
    const second = await client.responses.create({ model: 'service-rag', input: QUESTION, previous_response_id: first.id })
    await client.responses.delete(first.id)
    // The later turn itself is still there to read…
    expect((await client.responses.retrieve(second.id)).id).toBe(second.id)
    // …but continuing it would answer without the deleted part of the conversation: refused, naming it.
    const error = await rejection(client.responses.create({ model: 'service-rag', input: QUESTION, previous_response_id: second.id }))
    expect(error).toBeInstanceOf(OpenAI.NotFoundError)
    expect((error as Error).message).toContain(`continues response ${first.id}, which was deleted`)
  })
})

describe('whose responses', () => {
  test("another user's response is a 404 to retrieve, list and delete, exactly like a missing one, and stays the owner's", async () => {
    const owner = await caller()
    const other = await caller()
    const created = await owner.client.responses.create({ model: 'service-rag', input: QUESTION })
    await notFound(other.client.responses.retrieve(created.id), created.id)
    await notFound(other.client.responses.inputItems.list(created.id), created.id)
    await notFound(other.client.responses.delete(created.id), created.id)
    expect((await owner.client.responses.retrieve(created.id)).output_text).toBe(created.output_text)
  })

  test('another key of the same user reaches it: responses belong to the user, as previous_response_id does', async () => {
    const { client, user } = await caller()
    const created = await client.responses.create({ model: 'service-rag', input: QUESTION })
    const second = await s.t.json('POST', '/api/keys', { cookie: user.cookie, body: { label: 'second' } })
    const other = new OpenAI({ baseURL: s.baseURL, apiKey: second.body.key, maxRetries: 0 })
    expect((await other.responses.retrieve(created.id)).id).toBe(created.id)
    await other.responses.delete(created.id)
    await notFound(client.responses.retrieve(created.id), created.id)
  })

  test('a read-only key retrieves and lists but cannot delete (403 naming the write scope)', async () => {
    const { client, user } = await caller()
    const created = await client.responses.create({ model: 'service-rag', input: QUESTION })
    const readOnly = await s.t.json('POST', '/api/keys', { cookie: user.cookie, body: { label: 'widget', scopes: ['read'] } })
    const widget = new OpenAI({ baseURL: s.baseURL, apiKey: readOnly.body.key, maxRetries: 0 })
    expect((await widget.responses.retrieve(created.id)).id).toBe(created.id)
    expect((await widget.responses.inputItems.list(created.id)).data).toHaveLength(1)
    const error = await rejection(widget.responses.delete(created.id))
    expect(error).toBeInstanceOf(OpenAI.PermissionDeniedError)
    expect((error as Error).message).toContain('write')
  })
})
