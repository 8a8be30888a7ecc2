// What schemathesis (bun run fuzz) found where the OpenAPI document and the service disagreed, each pinned as
// a regular test: the document says it, and the service does it.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { dereference } from '../e2e/document'
import { documentedIds } from '../../src/modules/v1/model-aliases'
import { createTestApp, type TestApp, type TestUser } from '../harness'

let t: TestApp
let user: TestUser
let doc: any

beforeAll(async () => {
  t = await createTestApp()
  user = await t.signUp()
  doc = dereference((await t.json('GET', '/openapi/json')).body)
})
afterAll(() => t.close())

const op = (method: string, path: string) => doc.paths[path][method]
const param = (method: string, path: string, name: string) => op(method, path).parameters.find((p: { name: string }) => p.name === name)
const bodySchema = (method: string, path: string) => op(method, path).requestBody.content['application/json'].schema

describe('list cursors', () => {
  test('a cursor is documented by its pattern, and every cursor that fits it pages from where it falls', async () => {
    const pattern = new RegExp(param('get', '/api/documents', 'cursor').schema.pattern)
    const ws = await t.json('POST', '/api/workspaces', { key: user.key, body: { name: 'Cursor' } })
    const ids: string[] = []
    for (const title of ['one', 'two', 'three'])
      ids.push(
        (await t.json('POST', '/api/documents', { key: user.key, body: { workspace_id: ws.body.id, title, body: `note ${title}` } })).body
          .id,
      )
    const first = await t.json('GET', `/api/documents?workspace_id=${ws.body.id}&limit=1`, { key: user.key })
    expect(first.body.next_cursor).toMatch(pattern)
    // A cursor from another list (the workspaces') is a position too: no 400 for what the document allows.
    for (const list of ['/api/documents', '/api/workspaces', '/api/conversations', '/api/memories', '/api/sources']) {
      const res = await t.json('GET', `${list}?cursor=${first.body.next_cursor}`, { key: user.key })
      expect({ list, status: res.status }).toEqual({ list, status: 200 })
    }
    const made = await t.json('GET', `/api/workspaces?cursor=${'A'.repeat(22)}`, { key: user.key })
    expect(made.status).toBe(200)
    const next = await t.json('GET', `/api/documents?workspace_id=${ws.body.id}&limit=5&cursor=${first.body.next_cursor}`, {
      key: user.key,
    })
    expect(next.body.data.map((d: { id: string }) => d.id)).toEqual(ids.slice(0, 2).reverse())
  })

  test('a cursor that does not fit the pattern is a 400 naming the cursor', async () => {
    for (const cursor of ['xyz', 'A'.repeat(23), `${'A'.repeat(21)}=`]) {
      const res = await t.json('GET', `/api/workspaces?cursor=${encodeURIComponent(cursor)}`, { key: user.key })
      expect(res.status).toBe(400)
      expect(res.body.error).toContain('cursor')
    }
  })
})

describe('OAuth callbacks', () => {
  test('`state` is required by the document and by the service', async () => {
    for (const path of ['/api/connectors/oauth/callback', '/api/auth/oauth/{provider}/callback']) {
      expect({ path, required: param('get', path, 'state').required }).toEqual({ path, required: true })
    }
    const res = await t.json('GET', '/api/connectors/oauth/callback?code=abc')
    expect(res.status).toBe(400)
    expect(res.body.error).toContain('state')
  })
})

describe('/v1', () => {
  test("`model` is an enum of the one model each endpoint serves and its default aliases; another id is still OpenAI's 404", async () => {
    expect(bodySchema('post', '/v1/chat/completions').properties.model.enum).toEqual(documentedIds('service-rag'))
    expect(bodySchema('post', '/v1/responses').properties.model.enum).toEqual(documentedIds('service-rag'))
    expect(bodySchema('post', '/v1/embeddings').properties.model.enum).toEqual(documentedIds('service-embed'))
    expect(documentedIds('service-embed')).toEqual([
      'service-embed',
      'text-embedding-ada-002',
      'text-embedding-3-small',
      'text-embedding-3-large',
    ])
    const other = await t.json('POST', '/v1/embeddings', { key: user.key, body: { model: 'nomic-embed-text', input: 'hi' } })
    expect(other.status).toBe(404)
  })

  test('an empty input is refused, as the document says (minLength 1)', async () => {
    const input = bodySchema('post', '/v1/embeddings').properties.input
    const shapes: {
      type: string
      minItems?: number
      items?: { type: string; minLength?: number; minItems?: number }
      minLength?: number
    }[] = input.anyOf ?? input.oneOf
    for (const s of shapes) {
      // A text is at least one character; token ids, at least one id (and at least one array of them).
      if (s.type === 'string' || s.items?.type === 'string') expect((s.items ?? s).minLength).toBe(1)
      else expect([s.minItems, s.items?.minItems ?? 1]).toEqual([1, 1])
    }
    expect(shapes).toHaveLength(4)
    for (const body of [{ input: '' }, { input: ['a', ''] }, { input: [[]] }]) {
      const res = await t.json('POST', '/v1/embeddings', { key: user.key, body: { model: 'service-embed', ...body } })
      expect(res.status).toBe(400)
      expect(JSON.stringify(res.body)).toContain('input')
    }
  })
})

describe('/mcp', () => {
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  }

  test("406 without Accept: text/event-stream is documented, in JSON-RPC's envelope", async () => {
    expect(op('post', '/mcp').responses['406']).toBeDefined()
    const res = await t.request('POST', '/mcp', { key: user.key, body: initialize, headers: { accept: 'application/json' } })
    expect(res.status).toBe(406)
    expect((await res.json()).error.message).toContain('text/event-stream')
  })

  test('a message with neither a method nor a result is refused by the documented schema', async () => {
    const res = await t.json('POST', '/mcp', {
      key: user.key,
      body: { jsonrpc: '2.0' },
      headers: { accept: 'application/json, text/event-stream' },
    })
    expect(res.status).toBe(400)
    const body = bodySchema('post', '/mcp')
    for (const branch of body.anyOf ?? body.oneOf) expect(branch.required.length).toBeGreaterThan(1)
  })
})

describe('methods', () => {
  test('a method a fixed path does not have is 405 with Allow, even where a parameter route would match it', async () => {
    for (const [method, path, allow] of [
      ['PATCH', '/api/documents/check', 'GET, HEAD, OPTIONS'],
      ['PATCH', '/api/connectors/connections', 'GET, HEAD, OPTIONS'],
      ['PATCH', '/api/documents/bulk', 'POST, DELETE, OPTIONS'],
    ] as const) {
      const res = await t.request(method, path, { key: user.key, body: {} })
      expect({ path, status: res.status, allow: res.headers.get('allow') }).toEqual({ path, status: 405, allow })
      expect(res.headers.get('x-request-id')).toBeTruthy()
    }
  })
})

describe('answers every operation can give', () => {
  test('a malformed Idempotency-Key is a documented 400 wherever the key is taken', async () => {
    const key = doc.components.parameters.IdempotencyKey.schema
    expect(new RegExp(key.pattern).test('é')).toBe(false)
    expect(op('post', '/api/billing/sync').responses['400']).toBeDefined()
    const res = await t.json('POST', '/api/workspaces', { key: user.key, body: { name: 'x' }, headers: { 'idempotency-key': 'é' } })
    expect(res.status).toBe(400)
  })

  test('431 (headers too large) is documented on every operation, 413 on every one with a body', () => {
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, o] of Object.entries<any>(item)) {
        expect({ op: `${method} ${path}`, has: Boolean(o.responses['431']) }).toEqual({ op: `${method} ${path}`, has: true })
        if (o.requestBody)
          expect({ op: `${method} ${path}`, has: Boolean(o.responses['413']) }).toEqual({ op: `${method} ${path}`, has: true })
      }
    }
  })
})

describe('more of what the fuzz found', () => {
  test('OPTIONS on a fixed path lists the methods of that path only', async () => {
    const res = await t.request('OPTIONS', '/api/documents/check', { key: user.key })
    expect(res.status).toBe(204)
    expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS')
  })

  test('authorizing a connector takes no body, as the document says (requestBody not required)', async () => {
    expect(op('post', '/api/connectors/{id}/authorize').requestBody.required).toBe(false)
    const res = await t.request('POST', '/api/connectors/00000000-0000-7000-8000-000000000000/authorize', { key: user.key })
    expect(res.status).toBe(404)
  })

  test('the check endpoint documents the largest size it reads, and reads it', async () => {
    const max = param('get', '/api/documents/check', 'size_bytes').schema.maximum
    expect(max).toBe(999_999_999_999_999)
    const ok = await t.json('GET', `/api/documents/check?size_bytes=${max}`, { key: user.key })
    expect(ok.status).toBe(200)
  })

  test('billing return URLs are documented as absolute URIs; OAuth registration needs one redirect URI at least', () => {
    expect(bodySchema('post', '/api/billing/portal').properties.return_url.format).toBe('uri')
    // Stripe's {CHECKOUT_SESSION_ID} makes the success URL a template of one (test/billing: it is taken).
    expect(bodySchema('post', '/api/billing/checkout').properties.success_url.format).toBe('uri-template')
    expect(bodySchema('post', '/oauth/register').properties.redirect_uris.minItems).toBe(1)
  })
})

describe('email', () => {
  test('every address of the documented `email` format is taken, and one outside it is a 400', async () => {
    expect(bodySchema('post', '/api/auth/sign-up').properties.email.format).toBe('email')
    for (const email of ['h{{{@1opg81.1knkf.io', '0}#43j/2hl@stj9c6ct.z7.net', "o'brien+news@mail.example.org"]) {
      const res = await t.json('POST', '/api/auth/sign-up', {
        body: { email, password: 'correct horse battery' },
        headers: { origin: 'http://localhost:3000' },
      })
      expect({ email, status: res.status }).toEqual({ email, status: 201 })
    }
    for (const email of ['no-at-sign.example', 'a@b', 'a b@c.io', 'a..b@c.io']) {
      const res = await t.json('POST', '/api/auth/sign-up', {
        body: { email, password: 'correct horse battery' },
        headers: { origin: 'http://localhost:3000' },
      })
      expect({ email, status: res.status }).toEqual({ email, status: 400 })
    }
  })
})

describe('/mcp ids', () => {
  test('a numeric JSON-RPC id is documented as the safe integer the transport reads', async () => {
    const body = bodySchema('post', '/mcp')
    const id = (body.anyOf ?? body.oneOf)[1].properties.id
    const integer = (id.anyOf ?? id.oneOf).find((b: { type: string }) => b.type === 'integer')
    expect(integer.maximum).toBe(Number.MAX_SAFE_INTEGER)
    const res = await t.json('POST', '/mcp', {
      key: user.key,
      body: { jsonrpc: '2.0', id: 2 ** 60, result: {} },
      headers: { accept: 'application/json, text/event-stream' },
    })
    expect(res.status).toBe(400)
  })
})

describe('lengths count characters, as JSON Schema does', () => {
  test('a name, a title and tags of characters outside the BMP are measured in code points, in bodies and in queries', async () => {
    const emoji = (n: number) => '😀'.repeat(n) // two UTF-16 units each
    const user = await t.signUp()
    const ws = await t.json('POST', '/api/workspaces', { key: user.key, body: { name: emoji(100) } })
    expect(ws.status).toBe(201)
    expect(ws.body.name).toBe(emoji(100))
    const over = await t.json('POST', '/api/workspaces', { key: user.key, body: { name: emoji(101) } })
    expect(over.status).toBe(400)
    expect(over.body.error).toContain('1 to 100 characters')
    const fox = '𝕿𝖍𝖊 𝖖𝖚𝖎𝖈𝖐 𝖇𝖗𝖔𝖜𝖓 𝖋𝖔𝖝 𝖏𝖚𝖒𝖕𝖘 𝖔𝖛𝖊𝖗 𝖙𝖍𝖊 𝖑𝖆𝖟𝖞 𝖉𝖔𝖌' // 43 characters, 78 units
    const doc = await t.json('POST', '/api/documents', {
      key: user.key,
      body: { workspace_id: ws.body.id, title: emoji(500), body: 'astral', tags: [fox] },
    })
    expect(doc.status).toBe(201)
    expect(doc.body.tags).toEqual([fox])
    expect(
      (await t.json('POST', '/api/documents', { key: user.key, body: { workspace_id: ws.body.id, title: emoji(501), body: 'x' } })).status,
    ).toBe(400)
    const listed = await t.json('GET', `/api/documents?workspace_id=${ws.body.id}&tag=${encodeURIComponent(fox)}`, { key: user.key })
    expect(listed.status).toBe(200)
    expect(listed.body.data.map((d: { id: string }) => d.id)).toEqual([doc.body.id])
    // The document still says maxLength, which JSON Schema counts in characters.
    expect(bodySchema('post', '/api/workspaces').properties.name.maxLength).toBe(100)
  })
})
