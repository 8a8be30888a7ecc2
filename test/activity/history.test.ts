// A memory's history, as a person uses it: every version kept with who made it and what changed, each version read
// whole, an earlier one put back (a new version, recorded), the supersede chain with who approved each, and an
// approval taken back (the memory a draft again, the one it replaced active again).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp, type TestUser } from '../harness'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

const history = async (u: TestUser, id: string) => {
  const res = await t.json('GET', `/api/documents/${id}/history`, { cookie: u.cookie })
  expect(res.status).toBe(200)
  return res.body
}

describe('versions of a document', () => {
  test('each change keeps the version before it, with who made it and what it changed', async () => {
    const u = await t.signUp()
    const doc = (await t.json('POST', '/api/documents', { key: u.key, body: { title: 'Plan', body: 'Ship on Monday.' } })).body
    t.clock.advance(1000)
    await t.json('PATCH', `/api/documents/${doc.id}`, { cookie: u.cookie, body: { body: 'Ship on Friday.' } })
    t.clock.advance(1000)
    await t.json('PATCH', `/api/documents/${doc.id}`, { cookie: u.cookie, body: { tags: ['release'] } })
    t.clock.advance(1000)
    await t.json('POST', `/api/documents/${doc.id}/archive`, { cookie: u.cookie })

    const h = await history(u, doc.id)
    expect(h.versions.map((v: any) => [v.version, v.current, v.status, v.changed])).toEqual([
      [4, true, 'archived', ['status']],
      [3, false, 'active', ['tags']],
      [2, false, 'active', ['body']],
      [1, false, 'active', []],
    ])
    expect(h.versions[3].actor).toMatchObject({ kind: 'key', label: 'test' })
    expect(h.versions[2].actor).toMatchObject({ kind: 'person', surface: 'dashboard' })
    expect(h.chain).toEqual([])

    const body = async (n: number) => (await t.json('GET', `/api/documents/${doc.id}/versions/${n}`, { cookie: u.cookie })).body.body
    expect([await body(1), await body(2), await body(3), await body(4)]).toEqual([
      'Ship on Monday.',
      'Ship on Friday.',
      'Ship on Friday.',
      'Ship on Friday.',
    ])
    const missing = await t.json('GET', `/api/documents/${doc.id}/versions/9`, { cookie: u.cookie })
    expect(missing.status).toBe(404)
    expect(missing.body.error).toContain('versions are 1 to 4')
  })

  test('restoring an earlier version makes a new version with its text, recorded as a restore', async () => {
    const u = await t.signUp()
    const doc = (await t.json('POST', '/api/documents', { cookie: u.cookie, body: { title: 'Recipe', body: 'Two eggs.' } })).body
    await t.json('PATCH', `/api/documents/${doc.id}`, { cookie: u.cookie, body: { title: 'Recipe v2', body: 'Three eggs.' } })
    const restored = await t.json('POST', `/api/documents/${doc.id}/versions/1/restore`, { cookie: u.cookie })
    expect(restored.status).toBe(200)
    expect(restored.body).toMatchObject({ title: 'Recipe', body: 'Two eggs.' })
    expect((await history(u, doc.id)).versions.map((v: any) => v.version)).toEqual([3, 2, 1])
    const entries = (await t.json('GET', `/api/activity?object_id=${doc.id}`, { cookie: u.cookie })).body.data
    expect(entries[0]).toMatchObject({
      action: 'document.version_restore',
      summary: { from_version: 1, fields: ['title', 'excerpt', 'body'] },
    })
    expect((await t.json('POST', `/api/documents/${doc.id}/versions/3/restore`, { cookie: u.cookie })).status).toBe(409)
  })

  test("a key restoring an approved memory's earlier version proposes it as a draft", async () => {
    const u = await t.signUp()
    const memory = (
      await t.json('POST', '/api/documents', { cookie: u.cookie, body: { kind: 'fact', title: 'Home', body: 'Lives in Oslo.' } })
    ).body
    await t.json('PATCH', `/api/documents/${memory.id}`, { cookie: u.cookie, body: { body: 'Lives in Bergen.' } })
    const res = await t.json('POST', `/api/documents/${memory.id}/versions/1/restore`, { key: u.key })
    expect(res.status).toBe(202)
    expect(res.body).toMatchObject({ status: 'pending_approval', body: 'Lives in Oslo.', metadata: { supersedes: memory.id } })
    expect((await t.json('GET', `/api/documents/${memory.id}`, { key: u.key })).body.body).toBe('Lives in Bergen.')
  })
})

describe('taking an approval back', () => {
  test('the memory returns to a draft and the one it superseded is active again; the chain shows who approved', async () => {
    const u = await t.signUp()
    const old = (
      await t.json('POST', '/api/documents', { cookie: u.cookie, body: { kind: 'preference', title: 'Tea', body: 'Green tea.' } })
    ).body
    const draft = (await t.json('PATCH', `/api/documents/${old.id}`, { key: u.key, body: { body: 'Black tea.' } })).body
    expect((await t.json('POST', `/api/documents/${draft.id}/approve`, { cookie: u.cookie })).status).toBe(200)

    const h = await history(u, draft.id)
    expect(h.may_unapprove).toBe(true)
    expect(h.chain.map((l: any) => [l.id, l.status, l.current])).toEqual([
      [old.id, 'archived', false],
      [draft.id, 'active', true],
    ])
    expect(h.chain[1].approved.actor).toMatchObject({ kind: 'person' })
    expect(h.chain[1].supersedes).toBe(old.id)

    // A key may not take it back, as it may not approve.
    expect((await t.json('POST', `/api/documents/${draft.id}/unapprove`, { key: u.key })).status).toBe(403)
    const undone = await t.json('POST', `/api/documents/${draft.id}/unapprove`, { cookie: u.cookie })
    expect(undone.status).toBe(200)
    expect(undone.body.status).toBe('pending_approval')
    // The chain no longer calls it approved.
    expect((await history(u, draft.id)).chain[1]).toMatchObject({ id: draft.id, status: 'pending_approval', approved: null })
    expect((await t.json('GET', `/api/documents/${old.id}`, { cookie: u.cookie })).body.status).toBe('active')
    const entries = (await t.json('GET', '/api/activity?limit=4', { cookie: u.cookie })).body.data
    // Written in one statement: the two entries of the unapprove, then the approval's two before them.
    expect(
      entries
        .slice(0, 2)
        .map((e: any) => [e.action, e.object_id])
        .sort(),
    ).toEqual([
      ['document.restore', old.id],
      ['memory.unapprove', draft.id],
    ])
    expect(
      entries
        .slice(2, 4)
        .map((e: any) => [e.action, e.object_id])
        .sort(),
    ).toEqual([
      ['memory.approve', draft.id],
      ['memory.supersede', old.id],
    ])
    // Approved again, it supersedes again.
    expect((await t.json('POST', `/api/documents/${draft.id}/approve`, { cookie: u.cookie })).status).toBe(200)
    expect((await t.json('GET', `/api/documents/${old.id}`, { cookie: u.cookie })).body.status).toBe('archived')
  })

  test('only an approved memory can be taken back: a memory made active by hand, a document, a draft are 409', async () => {
    const u = await t.signUp()
    const own = (await t.json('POST', '/api/documents', { cookie: u.cookie, body: { kind: 'fact', title: 'Mine', body: 'Typed it.' } }))
      .body
    const doc = (await t.json('POST', '/api/documents', { cookie: u.cookie, body: { title: 'Doc', body: 'A document.' } })).body
    const draft = (await t.json('POST', '/api/documents', { key: u.key, body: { kind: 'fact', title: 'Draft', body: 'Proposed.' } })).body
    for (const id of [own.id, doc.id, draft.id]) {
      const res = await t.json('POST', `/api/documents/${id}/unapprove`, { cookie: u.cookie })
      expect(res.status).toBe(409)
      expect(res.body.error).toContain('only an approval can be taken back')
    }
  })

  test("another user's document has no history, no version and no unapprove: 404", async () => {
    const a = await t.signUp()
    const b = await t.signUp()
    const doc = (await t.json('POST', '/api/documents', { cookie: a.cookie, body: { title: 'Mine', body: 'Private.' } })).body
    for (const [method, path] of [
      ['GET', `/api/documents/${doc.id}/history`],
      ['GET', `/api/documents/${doc.id}/versions/1`],
      ['POST', `/api/documents/${doc.id}/versions/1/restore`],
      ['POST', `/api/documents/${doc.id}/unapprove`],
    ])
      expect((await t.json(method!, path!, { cookie: b.cookie })).status).toBe(404)
  })
})
