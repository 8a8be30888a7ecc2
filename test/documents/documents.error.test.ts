// Documents, errors: every bad request is answered with a status a client can act on and `{ error }`
// naming the field — never a 500, and nothing half-done.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { ingest, storedCount } from './documents.fixtures'

let t: TestApp
let u: TestUser
let doc: { id: string }
beforeAll(async () => {
  t = await createTestApp()
  u = await t.signUp()
  doc = await ingest(t, u, { title: 'Target' })
})
afterAll(() => t.close())

const MISSING = '01900000-0000-7000-8000-000000000000'

async function expectError(res: { status: number; body: any }, status: number, mentions?: string | RegExp) {
  expect(res.status).toBe(status)
  expect(typeof res.body?.error).toBe('string')
  if (mentions) expect(res.body.error).toMatch(mentions)
}

describe('validation failures are 400 and name the field', () => {
  const ingestCases: [string, Record<string, unknown>, string | RegExp][] = [
    ['an unknown kind', { body: 'text', kind: 'poem' }, 'kind'],
    ['51 tags', { body: 'text', tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }, 'tags'],
    ['a tag of 65 characters', { body: 'text', tags: ['ok', 'x'.repeat(65)] }, 'tag'],
    ['a title of 501 characters', { body: 'text', title: 'x'.repeat(501) }, 'title'],
    ['an empty body', { body: '' }, 'body'],
    ['no body at all', { title: 'only a title' }, 'body'],
    ['a URL that is not one', { body: 'text', url: 'not a url' }, 'url'],
    ['a javascript: URL', { body: 'text', url: "javascript:alert('x')" }, 'http(s)'],
    ['a data: URL', { body: 'text', url: 'data:text/html,<b>x</b>' }, 'http(s)'],
    ['an ftp URL', { body: 'text', url: 'ftp://files.example/a.txt' }, 'http(s)'],
    ['a workspace_id that is not a UUID', { body: 'text', workspace_id: 'abc' }, 'workspace_id'],
    ['an unknown source', { body: 'text', source: 'carrier-pigeon' }, 'source'],
  ]
  for (const [what, body, field] of ingestCases) {
    test(`ingest with ${what}`, async () => {
      const before = await storedCount(t, u)
      await expectError(await t.json('POST', '/api/documents', { key: u.key, body }), 400, field)
      expect(await storedCount(t, u)).toBe(before)
    })
  }

  test('a document id in the path that is not a UUID', async () => {
    for (const [method, path] of [
      ['GET', '/api/documents/not-a-uuid'],
      ['PATCH', '/api/documents/not-a-uuid'],
      ['DELETE', '/api/documents/not-a-uuid'],
      ['POST', '/api/documents/not-a-uuid/archive'],
      ['GET', '/api/documents/not-a-uuid/links'],
      ['DELETE', `/api/documents/${MISSING}/links/not-a-uuid`],
    ] as const) {
      const body = method === 'PATCH' ? { title: 'x' } : undefined
      await expectError(await t.json(method, path, { key: u.key, body }), 400, /id/i)
    }
  })

  test('PATCH with nothing to change', async () => {
    await expectError(await t.json('PATCH', `/api/documents/${doc.id}`, { key: u.key, body: {} }), 400, /title/)
  })

  test('PATCH with an invalid field changes nothing', async () => {
    await expectError(await t.json('PATCH', `/api/documents/${doc.id}`, { key: u.key, body: { title: '' } }), 400, 'title')
    await expectError(await t.json('PATCH', `/api/documents/${doc.id}`, { key: u.key, body: { tags: Array(51).fill('a') } }), 400, 'tags')
    expect((await t.json('GET', `/api/documents/${doc.id}`, { key: u.key })).body.title).toBe('Target')
  })

  test('a rating other than -1, 0 or 1', async () => {
    for (const rating of [2, -2, 0.5, 'up']) {
      await expectError(await t.json('POST', `/api/documents/${doc.id}/rate`, { key: u.key, body: { rating } }), 400, 'rating')
    }
    expect((await t.json('GET', `/api/documents/${doc.id}`, { key: u.key })).body.rating).toBe(0)
  })

  test('list filters and paging with bad values', async () => {
    await expectError(await t.json('GET', '/api/documents?kind=poem', { key: u.key }), 400, 'kind')
    await expectError(await t.json('GET', '/api/documents?status=deleted', { key: u.key }), 400, 'status')
    await expectError(await t.json('GET', '/api/documents?limit=0', { key: u.key }), 400, 'limit')
    await expectError(await t.json('GET', '/api/documents?limit=101', { key: u.key }), 400, 'limit')
    await expectError(await t.json('GET', '/api/documents?cursor=garbage', { key: u.key }), 400, 'cursor')
    await expectError(await t.json('GET', '/api/documents?workspace_id=abc', { key: u.key }), 400, 'workspace_id')
  })

  test('bulk delete without ids, or with a bad one', async () => {
    await expectError(await t.json('DELETE', '/api/documents/bulk', { key: u.key, body: { ids: [] } }), 400, 'ids')
    await expectError(await t.json('DELETE', '/api/documents/bulk', { key: u.key, body: {} }), 400, 'ids')
    await expectError(await t.json('DELETE', '/api/documents/bulk', { key: u.key, body: { ids: [doc.id, 'nope'] } }), 400, 'ids')
    expect((await t.json('GET', `/api/documents/${doc.id}`, { key: u.key })).status).toBe(200)
  })

  test('linking a document to itself, or without a valid target', async () => {
    await expectError(await t.json('POST', `/api/documents/${doc.id}/link`, { key: u.key, body: { target_id: doc.id } }), 400, 'target_id')
    await expectError(await t.json('POST', `/api/documents/${doc.id}/link`, { key: u.key, body: { target_id: 'x' } }), 400, 'target_id')
    await expectError(await t.json('POST', `/api/documents/${doc.id}/link`, { key: u.key, body: {} }), 400, 'target_id')
  })
})

describe('malformed and oversized requests', () => {
  test('malformed JSON is 400', async () => {
    const res = await t.request('POST', '/api/documents', {
      key: u.key,
      body: '{"body": "unterminated',
      headers: { 'content-type': 'application/json' },
    })
    expect(res.status).toBe(400)
    expect(typeof ((await res.json()) as any).error).toBe('string')
  })

  test('a body over 1 MiB is 413 with { error }, and nothing is stored', async () => {
    const before = await storedCount(t, u)
    const res = await t.json('POST', '/api/documents', { key: u.key, body: { body: 'x'.repeat(1024 * 1024 + 1) } })
    await expectError(res, 413, 'body')
    expect(await storedCount(t, u)).toBe(before)
    await expectError(
      await t.json('PATCH', `/api/documents/${doc.id}`, { key: u.key, body: { body: 'é'.repeat(600 * 1024) } }),
      413,
      'body',
    )
  })

  test('a request over the 2 MiB request limit is 413 with { error }, whether or not it declares its length', async () => {
    const payload = JSON.stringify({ body: 'x'.repeat(3 * 1024 * 1024) })
    const declared = await t.json('POST', '/api/documents', {
      key: u.key,
      body: payload,
      headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) },
    })
    await expectError(declared, 413)
    // A streamed (chunked) upload has no Content-Length: the app still counts the bytes.
    const streamed = await t.json('POST', '/api/documents', { key: u.key, body: payload, headers: { 'content-type': 'application/json' } })
    await expectError(streamed, 413)
  })

  test('metadata over 16 KiB is 400', async () => {
    const before = await storedCount(t, u)
    await expectError(
      await t.json('POST', '/api/documents', { key: u.key, body: { body: 'text', metadata: { blob: 'x'.repeat(17 * 1024) } } }),
      400,
      'metadata',
    )
    expect(await storedCount(t, u)).toBe(before)
  })
})

describe('things that do not exist', () => {
  test('an unknown workspace_id is 404 and nothing is stored', async () => {
    const before = await storedCount(t, u)
    await expectError(
      await t.json('POST', '/api/documents', { key: u.key, body: { body: 'text', workspace_id: MISSING } }),
      404,
      'workspace',
    )
    await expectError(await t.json('GET', `/api/documents/check?workspace_id=${MISSING}`, { key: u.key }), 404, 'workspace')
    expect(await storedCount(t, u)).toBe(before)
  })

  test('every route on a missing document is 404', async () => {
    const other = doc.id
    for (const [method, path, body] of [
      ['GET', `/api/documents/${MISSING}`],
      ['PATCH', `/api/documents/${MISSING}`, { title: 'x' }],
      ['DELETE', `/api/documents/${MISSING}`],
      ['POST', `/api/documents/${MISSING}/archive`],
      ['POST', `/api/documents/${MISSING}/restore`],
      ['POST', `/api/documents/${MISSING}/forget`],
      ['POST', `/api/documents/${MISSING}/rate`, { rating: 1 }],
      ['POST', `/api/documents/${MISSING}/approve`],
      ['POST', `/api/documents/${MISSING}/reject`],
      ['GET', `/api/documents/${MISSING}/links`],
      ['POST', `/api/documents/${MISSING}/link`, { target_id: other }],
      ['POST', `/api/documents/${other}/link`, { target_id: MISSING }],
      ['DELETE', `/api/documents/${MISSING}/links/${other}`],
      ['DELETE', `/api/documents/${other}/links/${MISSING}`],
    ] as [string, string, unknown?][]) {
      // Approving takes a person signed in: a key never gets that far.
      const res = await t.json(method, path, path.endsWith('/approve') ? { cookie: u.cookie, body } : { key: u.key, body })
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 404 })
      expect(typeof res.body.error).toBe('string')
    }
  })
})

describe('transitions that do not apply', () => {
  test('approving or rejecting an active document is 409 and changes nothing', async () => {
    const d = await ingest(t, u)
    await expectError(await t.json('POST', `/api/documents/${d.id}/approve`, { cookie: u.cookie }), 409)
    await expectError(await t.json('POST', `/api/documents/${d.id}/reject`, { key: u.key }), 409)
    expect((await t.json('GET', `/api/documents/${d.id}`, { key: u.key })).body.status).toBe('active')
  })

  test('restoring a pending draft is 409: a draft is approved, not restored', async () => {
    const ws = (await t.json('GET', '/api/workspaces', { key: u.key })).body.data[0].id
    const drafts = await t.json('POST', '/api/memories/batch-draft', {
      key: u.key,
      body: { workspace_id: ws, learnings: [{ kind: 'fact', title: 'Draft', body: 'A draft fact' }] },
    })
    expect(drafts.status).toBe(201)
    const draft = drafts.body.data[0]
    await expectError(await t.json('POST', `/api/documents/${draft.id}/restore`, { key: u.key }), 409, /approve/)
    expect((await t.json('GET', `/api/documents/${draft.id}`, { key: u.key })).body.status).toBe('pending_approval')
  })

  test('approving an archived (rejected) draft is 409', async () => {
    const ws = (await t.json('GET', '/api/workspaces', { key: u.key })).body.data[0].id
    const drafts = await t.json('POST', '/api/memories/batch-draft', {
      key: u.key,
      body: { workspace_id: ws, learnings: [{ kind: 'lesson', title: 'Nope', body: 'A rejected lesson' }] },
    })
    const draft = drafts.body.data[0]
    expect((await t.json('POST', `/api/documents/${draft.id}/reject`, { key: u.key })).status).toBe(200)
    await expectError(await t.json('POST', `/api/documents/${draft.id}/approve`, { cookie: u.cookie }), 409)
    await expectError(await t.json('POST', `/api/documents/${draft.id}/reject`, { key: u.key }), 409)
  })
})

describe('unknown routes', () => {
  test('an unknown path under /api/documents is 404 with { error }', async () => {
    await expectError(await t.json('POST', `/api/documents/${doc.id}/publish`, { key: u.key }), 404)
  })
})
