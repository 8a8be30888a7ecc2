// The activity record, as a person reads it: every kind of write to their data appears with who made it (signed in,
// or a key by label and prefix, and the way in), what changed without the content, and when; filters and pages;
// another user's entries are never visible; forgetting a document leaves an entry without its words.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { activity, documentVersions } from '../../db/schema'
import { createTestApp, type TestApp, type TestUser } from '../harness'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

const list = async (u: TestUser, query = '') => {
  const res = await t.json('GET', `/api/activity${query}`, { cookie: u.cookie })
  expect(res.status).toBe(200)
  return res.body as { data: any[]; next_cursor: string | null }
}

const ingest = async (u: TestUser, body: Record<string, unknown>, as: 'key' | 'cookie' = 'key') => {
  const res = await t.json('POST', '/api/documents', { [as]: as === 'key' ? u.key : u.cookie, body })
  expect(res.status).toBeLessThan(300)
  return res.body
}

describe('what a person sees happened', () => {
  test('a key ingests, the person edits, archives, restores and deletes: each entry names who and what changed', async () => {
    const u = await t.signUp()
    const doc = await ingest(u, { title: 'Trip notes', body: 'We fly on Tuesday.' })
    expect(
      (await t.json('PATCH', `/api/documents/${doc.id}`, { cookie: u.cookie, body: { title: 'Trip plan', tags: ['travel'] } })).status,
    ).toBe(200)
    expect((await t.json('POST', `/api/documents/${doc.id}/archive`, { cookie: u.cookie })).status).toBe(200)
    expect((await t.json('POST', `/api/documents/${doc.id}/restore`, { key: u.key })).status).toBe(200)
    expect((await t.json('DELETE', `/api/documents/${doc.id}`, { cookie: u.cookie })).status).toBe(204)

    const { data } = await list(u, `?object_id=${doc.id}`)
    expect(data.map((e) => e.action)).toEqual([
      'document.delete',
      'document.restore',
      'document.archive',
      'document.update',
      'document.create',
    ])
    const [deleted, restored, archived, edited, created] = data
    expect(created).toMatchObject({
      object_type: 'document',
      object_id: doc.id,
      title: 'Trip notes',
      actor: { kind: 'key', surface: 'rest', label: 'test', prefix: expect.stringMatching(/^.{16}$/) },
      summary: { kind: 'document', source: 'api' },
    })
    expect(created.actor.id).toEqual(expect.any(String))
    expect(edited).toMatchObject({
      title: 'Trip plan',
      actor: { kind: 'person', surface: 'dashboard', id: null },
      summary: { fields: ['title', 'tags'] },
    })
    expect(archived.summary).toEqual({ status: { from: 'active', to: 'archived' } })
    expect(restored).toMatchObject({ actor: { kind: 'key' }, summary: { status: { from: 'archived', to: 'active' } } })
    expect(deleted).toMatchObject({ title: 'Trip plan', actor: { kind: 'person' } })
    // Never the text itself.
    expect(JSON.stringify(data)).not.toContain('Tuesday')
  })

  test('an agent proposes, the person approves (superseding the old memory) or rejects; the key that proposed is named', async () => {
    const u = await t.signUp()
    const old = await ingest(u, { kind: 'preference', title: 'Coffee', body: 'Likes coffee black.' }, 'cookie')
    const proposed = await t.json('PATCH', `/api/documents/${old.id}`, { key: u.key, body: { body: 'Likes coffee with oat milk.' } })
    expect(proposed.status).toBe(202)
    const draft = proposed.body
    expect((await t.json('POST', `/api/documents/${draft.id}/approve`, { cookie: u.cookie })).status).toBe(200)
    const other = await ingest(u, { kind: 'fact', title: 'Car', body: 'Drives a red car.' })
    expect(other.status).toBe('pending_approval')
    expect((await t.json('POST', `/api/documents/${other.id}/reject`, { cookie: u.cookie })).status).toBe(200)

    const { data } = await list(u, '?action=memory')
    expect(data.map((e) => [e.action, e.object_id])).toEqual([
      ['memory.reject', other.id],
      ['memory.draft', other.id],
      ['memory.supersede', old.id],
      ['memory.approve', draft.id],
      ['memory.draft', draft.id],
      ['memory.create', old.id],
    ])
    expect(data[1].actor).toMatchObject({ kind: 'key', label: 'test' })
    expect(data[3]).toMatchObject({ actor: { kind: 'person' }, summary: { supersedes: old.id } })
    expect(data[2].summary).toEqual({ by: draft.id })
    expect(data[4].summary).toMatchObject({ supersedes: old.id })
  })

  test('links, workspaces, keys, settings and conversations are recorded too', async () => {
    const u = await t.signUp()
    const a = await ingest(u, { title: 'A', body: 'alpha' })
    const b = await ingest(u, { title: 'B', body: 'beta' })
    expect((await t.json('POST', `/api/documents/${a.id}/link`, { key: u.key, body: { target_id: b.id } })).status).toBeLessThan(300)
    expect((await t.json('DELETE', `/api/documents/${a.id}/links/${b.id}`, { key: u.key })).status).toBe(204)
    const ws = (await t.json('POST', '/api/workspaces', { cookie: u.cookie, body: { name: 'Side project' } })).body
    await t.json('PATCH', `/api/workspaces/${ws.id}`, { cookie: u.cookie, body: { name: 'Main project' } })
    await t.json('DELETE', `/api/workspaces/${ws.id}`, { cookie: u.cookie })
    const thread = (
      await t.json('POST', '/api/threads', { key: u.key, body: { title: 'Standup', messages: [{ speaker: 'Ann', content: 'Hi' }] } })
    ).body
    const threadId = thread.thread?.id ?? thread.id
    // The free plan holds one key: the test's own is revoked, and another made.
    const [own] = (await t.json('GET', '/api/keys', { cookie: u.cookie })).body.data
    expect((await t.json('DELETE', `/api/keys/${own.id}`, { cookie: u.cookie })).status).toBe(204)
    const key = (await t.json('POST', '/api/keys', { cookie: u.cookie, body: { label: 'laptop agent' } })).body
    expect((await t.json('DELETE', `/api/keys/${key.id}`, { cookie: u.cookie })).status).toBe(204)
    await t.json('PATCH', '/api/settings', { cookie: u.cookie, body: { search_mode: 'keyword' } })

    const actions = (await list(u, '?limit=100')).data.map((e) => e.action)
    for (const action of [
      'link.create',
      'link.delete',
      'workspace.create',
      'workspace.update',
      'workspace.delete',
      'key.create',
      'key.revoke',
      'settings.update',
      'thread.create',
      'thread.update',
    ])
      expect(actions).toContain(action)
    const keyEntries = (await list(u, `?object_id=${key.id}`)).data
    expect(keyEntries.map((e) => e.action)).toEqual(['key.revoke', 'key.create'])
    expect(keyEntries[0]).toMatchObject({ title: 'laptop agent', summary: { prefix: key.prefix } })
    const threadEntries = (await list(u, `?object_id=${threadId}`)).data
    expect(threadEntries.map((e) => e.action)).toEqual(['thread.update', 'thread.create'])
    expect(threadEntries[0].summary).toEqual({ messages_added: 1, messages_updated: 0 })
    // A key's own activity: what that key did, by its id (the person's revoke of it is not among it).
    const byKey = (await list(u, `?actor=${own.id}&limit=100`)).data
    expect(byKey.map((e) => e.action)).toEqual([
      'thread.update',
      'thread.create',
      'link.delete',
      'link.create',
      'document.create',
      'document.create',
    ])
    expect(byKey.every((e) => e.actor.prefix === own.prefix)).toBe(true)
  })
})

describe('reading the record', () => {
  test('filters by action family, actor kind, object type and time, and pages newest first without gaps', async () => {
    const u = await t.signUp()
    for (let i = 0; i < 5; i++) await ingest(u, { title: `Note ${i}`, body: `body ${i}` })
    await ingest(u, { title: 'By hand', body: 'typed in the dashboard' }, 'cookie')
    const byKey = await list(u, '?actor=key')
    expect(byKey.data.every((e) => e.actor.kind === 'key')).toBe(true)
    expect(byKey.data.length).toBeGreaterThanOrEqual(5)
    expect((await list(u, '?actor=person&action=document.create')).data.map((e) => e.title)).toEqual(['By hand'])
    expect((await list(u, '?object_type=key')).data.every((e) => e.object_type === 'key')).toBe(true)

    const seen: string[] = []
    let cursor: string | null = ''
    while (cursor !== null) {
      const page = await list(u, `?action=document&limit=2${cursor ? `&cursor=${cursor}` : ''}`)
      seen.push(...page.data.map((e) => e.title))
      cursor = page.next_cursor
    }
    expect(seen).toEqual(['By hand', 'Note 4', 'Note 3', 'Note 2', 'Note 1', 'Note 0'])

    t.clock.advance(60_000)
    const after = new Date(t.clock.now().getTime()).toISOString()
    await ingest(u, { title: 'Later', body: 'later still' })
    expect((await list(u, `?after=${encodeURIComponent(after)}`)).data.map((e) => e.title)).toEqual(['Later'])
    expect((await list(u, `?before=${encodeURIComponent(after)}&action=document.create&limit=1`)).data.map((e) => e.title)).toEqual([
      'By hand',
    ])
    expect((await list(u, `?after=${encodeURIComponent(after)}&before=${encodeURIComponent(after)}`)).data).toEqual([])
  })

  test('bad filters are a 400 naming them', async () => {
    const u = await t.signUp()
    for (const [query, word] of [
      ['?action=DROP TABLE', 'action'],
      ['?actor=everyone', 'actor'],
      ['?object_type=planet', 'object_type'],
      ['?after=yesterday', 'after'],
      ['?limit=0', 'limit'],
      ['?object_id=42', 'object_id'],
    ]) {
      const res = await t.json('GET', `/api/activity${query}`, { cookie: u.cookie })
      expect(res.status).toBe(400)
      expect(res.body.error).toContain(word)
    }
    expect((await t.json('GET', '/api/activity')).status).toBe(401)
  })

  test("another user's activity is never visible, even by its object's id", async () => {
    const a = await t.signUp()
    const b = await t.signUp()
    const doc = await ingest(a, { title: 'Private plans', body: 'only mine' })
    expect((await list(b, `?object_id=${doc.id}`)).data).toEqual([])
    expect(JSON.stringify((await list(b, '?limit=100')).data)).not.toContain('Private plans')
  })
})

describe('forgetting', () => {
  test('forget leaves a content-free entry, erases the title from every earlier entry, and purges every version', async () => {
    const u = await t.signUp()
    const doc = await ingest(u, { title: 'Diagnosis', body: 'The secret diagnosis is flu.' })
    await t.json('PATCH', `/api/documents/${doc.id}`, {
      cookie: u.cookie,
      body: { title: 'Diagnosis 2', body: 'The secret diagnosis is a cold.' },
    })
    expect((await t.deps.db.select().from(documentVersions).where(eq(documentVersions.document_id, doc.id))).length).toBe(1)
    expect((await t.json('POST', `/api/documents/${doc.id}/forget`, { cookie: u.cookie })).status).toBe(204)

    const { data } = await list(u, `?object_id=${doc.id}`)
    expect(data.map((e) => e.action)).toEqual(['document.forget', 'document.update', 'document.create'])
    expect(data.every((e) => e.title === null)).toBe(true)
    const rows = await t.deps.db.select().from(activity).where(eq(activity.user_id, u.id))
    expect(JSON.stringify(rows)).not.toMatch(/Diagnosis|secret|flu|cold/)
    expect(await t.deps.db.select().from(documentVersions).where(eq(documentVersions.document_id, doc.id))).toEqual([])
  })
})

describe('retention', () => {
  test('entries older than ACTIVITY_RETENTION_DAYS are swept by maintenance; 0 keeps them', async () => {
    const { pruneActivity } = await import('../../src/modules/activity/activity.service')
    const short = await createTestApp({ env: { ACTIVITY_RETENTION_DAYS: '30' } })
    try {
      const u = await short.signUp()
      await short.json('POST', '/api/documents', { key: u.key, body: { title: 'Old', body: 'old one' } })
      short.clock.advance(31 * 86_400_000)
      await short.json('POST', '/api/documents', { key: u.key, body: { title: 'New', body: 'new one' } })
      expect(await pruneActivity(short.deps)).toBeGreaterThanOrEqual(1)
      const left = await short.json('GET', '/api/activity?action=document', { key: u.key })
      expect(left.body.data.map((e: any) => e.title)).toEqual(['New'])
    } finally {
      await short.close()
    }
    expect(await pruneActivity({ ...t.deps, config: { ...t.deps.config, activityRetentionDays: 0 } })).toBe(0)
  })
})
