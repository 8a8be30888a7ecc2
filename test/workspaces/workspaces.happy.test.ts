// /api/workspaces: list, create, rename, delete (cascading), active document counts, and the context pack.
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import { isMemoryKind } from '../../src/modules/documents/documents.model'
import { createTestApp, type TestApp, type TestUser } from '../harness'

// test/setup.ts sets 30 s, but that default is lost for files that run after a src/*.test.ts file; the first
// app of a process migrates the template database, which can take longer than Bun's own 5 s.
setDefaultTimeout(30_000)

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/

let t: TestApp
beforeAll(async () => {
  t = await createTestApp({ env: { DEFAULT_PLAN: 'pro' } })
})
afterAll(() => t.close())

interface Doc {
  id: string
  updated_at: string
  [k: string]: unknown
}

async function ingest(u: TestUser, body: Record<string, unknown>): Promise<Doc> {
  // Active memories are written by the person signed in: with a key they would be drafts.
  const res = await t.json('POST', '/api/documents', {
    ...(isMemoryKind(String(body.kind)) ? { cookie: u.cookie } : { key: u.key }),
    body: { source: 'api', ...body },
  })
  if (res.status !== 201) throw new Error(`ingest failed: ${res.status} ${JSON.stringify(res.body)}`)
  t.clock.advance(1000) // distinct updated_at, so "recent" has a defined order
  return res.body
}

async function createWorkspace(u: TestUser, name: string, description?: string) {
  const res = await t.json('POST', '/api/workspaces', { key: u.key, body: { name, ...(description ? { description } : {}) } })
  expect(res.status).toBe(201)
  return res.body as {
    id: string
    name: string
    description: string | null
    document_count: number
    created_at: string
    updated_at: string
  }
}

const list = async (u: TestUser, query = '') => (await t.json('GET', `/api/workspaces${query}`, { key: u.key })).body

describe('list and create', () => {
  test('a new account has one Default workspace with no documents', async () => {
    const u = await t.signUp()
    const page = await list(u)
    expect(page.next_cursor).toBeNull()
    expect(page.data).toHaveLength(1)
    expect(page.data[0]).toMatchObject({ name: 'Default', description: null, document_count: 0 })
    expect(page.data[0].id).toMatch(/^[0-9a-f-]{36}$/)
    expect(page.data[0].created_at).toMatch(ISO)
    expect(page.data[0].updated_at).toMatch(ISO)
  })

  test('create answers 201 with the workspace at the top level; it is listed first', async () => {
    const u = await t.signUp()
    const w = await createWorkspace(u, 'Research', 'papers and notes')
    expect(w).toMatchObject({ name: 'Research', description: 'papers and notes', document_count: 0 })
    expect(w.created_at).toBe(t.clock.now().toISOString())
    const page = await list(u)
    expect(page.data.map((x: { id: string }) => x.id)[0]).toBe(w.id)
    expect(page.data.find((x: { id: string }) => x.id === w.id)).toEqual(w)
  })

  test('names and descriptions are trimmed; a blank description is null', async () => {
    const u = await t.signUp()
    const w = (await t.json('POST', '/api/workspaces', { key: u.key, body: { name: '  Spaced out  ', description: '   ' } })).body
    expect(w.name).toBe('Spaced out')
    expect(w.description).toBeNull()
  })

  test('the list pages with limit and cursor', async () => {
    const u = await t.signUp()
    const made = [await createWorkspace(u, 'one'), await createWorkspace(u, 'two'), await createWorkspace(u, 'three')]
    const first = await list(u, '?limit=2')
    expect(first.data).toHaveLength(2)
    expect(first.next_cursor).toBeString()
    const second = await list(u, `?limit=2&cursor=${encodeURIComponent(first.next_cursor)}`)
    expect(second.data).toHaveLength(2)
    expect(second.next_cursor).toBeNull()
    const ids = [...first.data, ...second.data].map((w: { id: string }) => w.id)
    expect(new Set(ids).size).toBe(4)
    for (const w of made) expect(ids).toContain(w.id)
  })
})

describe('rename', () => {
  test('PATCH renames and keeps the description; updated_at moves', async () => {
    const u = await t.signUp()
    const w = await createWorkspace(u, 'Old name', 'kept')
    t.clock.advance(5000)
    const res = await t.json('PATCH', `/api/workspaces/${w.id}`, { key: u.key, body: { name: 'New name' } })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ id: w.id, name: 'New name', description: 'kept', created_at: w.created_at })
    expect(Date.parse(res.body.updated_at)).toBeGreaterThan(Date.parse(w.updated_at))
    expect((await list(u)).data.find((x: { id: string }) => x.id === w.id).name).toBe('New name')
  })

  test('PATCH can change or clear the description alone', async () => {
    const u = await t.signUp()
    const w = await createWorkspace(u, 'Notes', 'first')
    expect((await t.json('PATCH', `/api/workspaces/${w.id}`, { key: u.key, body: { description: 'second' } })).body).toMatchObject({
      name: 'Notes',
      description: 'second',
    })
    expect((await t.json('PATCH', `/api/workspaces/${w.id}`, { key: u.key, body: { description: null } })).body).toMatchObject({
      name: 'Notes',
      description: null,
    })
  })

  test('the Default workspace can be renamed too, and the response carries its document count', async () => {
    const u = await t.signUp()
    const [def] = (await list(u)).data
    await ingest(u, { workspace_id: def.id, body: 'in the default workspace' })
    const res = await t.json('PATCH', `/api/workspaces/${def.id}`, { key: u.key, body: { name: 'Inbox' } })
    expect(res.body).toMatchObject({ name: 'Inbox', document_count: 1 })
  })
})

describe('document_count', () => {
  test('counts active documents only (not archived ones, not pending drafts)', async () => {
    const u = await t.signUp()
    const w = await createWorkspace(u, 'Counted')
    await ingest(u, { workspace_id: w.id, body: 'active one' })
    await ingest(u, { workspace_id: w.id, body: 'active two', kind: 'fact' })
    const archived = await ingest(u, { workspace_id: w.id, body: 'to be archived' })
    expect((await t.request('POST', `/api/documents/${archived.id}/archive`, { key: u.key })).status).toBe(200)
    const drafts = await t.json('POST', '/api/memories/batch-draft', {
      key: u.key,
      body: { workspace_id: w.id, learnings: [{ kind: 'fact', title: 'draft', body: 'a pending draft' }] },
    })
    expect(drafts.status).toBe(201)
    const other = await createWorkspace(u, 'Elsewhere')
    await ingest(u, { workspace_id: other.id, body: 'not in Counted' })

    const page = await list(u)
    expect(page.data.find((x: { id: string }) => x.id === w.id).document_count).toBe(2)
    expect(page.data.find((x: { id: string }) => x.id === other.id).document_count).toBe(1)

    // approving the draft and restoring the archived one bring the count to 4
    await t.request('POST', `/api/documents/${drafts.body.data[0].id}/approve`, { cookie: u.cookie })
    await t.request('POST', `/api/documents/${archived.id}/restore`, { key: u.key })
    expect((await list(u)).data.find((x: { id: string }) => x.id === w.id).document_count).toBe(4)
  })
})

describe('delete', () => {
  test('204; the workspace is gone and its documents, drafts and links with it', async () => {
    const u = await t.signUp()
    const w = await createWorkspace(u, 'Doomed')
    const keep = await ingest(u, { body: 'lives in the default workspace' })
    const a = await ingest(u, { workspace_id: w.id, body: 'doomed a' })
    const b = await ingest(u, { workspace_id: w.id, body: 'doomed b' })
    const archived = await ingest(u, { workspace_id: w.id, body: 'doomed archived' })
    await t.request('POST', `/api/documents/${archived.id}/archive`, { key: u.key })
    const draft = (
      await t.json('POST', '/api/memories/batch-draft', {
        key: u.key,
        body: { workspace_id: w.id, learnings: [{ kind: 'lesson', title: 't', body: 'doomed draft' }] },
      })
    ).body.data[0]
    expect((await t.request('POST', `/api/documents/${a.id}/link`, { key: u.key, body: { target_id: keep.id } })).status).toBe(201)

    expect((await t.request('DELETE', `/api/workspaces/${w.id}`, { key: u.key })).status).toBe(204)
    expect((await list(u)).data.map((x: { id: string }) => x.id)).not.toContain(w.id)
    for (const d of [a, b, archived, draft]) expect((await t.request('GET', `/api/documents/${d.id}`, { key: u.key })).status).toBe(404)
    for (const status of ['active', 'archived', 'pending_approval']) {
      const docs = (await t.json('GET', `/api/documents?status=${status}`, { key: u.key })).body.data.map((d: { id: string }) => d.id)
      for (const d of [a, b, archived, draft]) expect(docs).not.toContain(d.id)
    }
    // the surviving document lost its link to the deleted one; it is still there
    expect((await t.json('GET', `/api/documents/${keep.id}/links`, { key: u.key })).body.data).toEqual([])
    expect((await t.request('GET', `/api/documents/${keep.id}`, { key: u.key })).status).toBe(200)
    // the workspace's context is gone too
    expect((await t.request('GET', `/api/workspaces/${w.id}/context`, { key: u.key })).status).toBe(404)
  })

  test('deleting the Default workspace is allowed while another exists; ingest then goes to the remaining one', async () => {
    const u = await t.signUp()
    const [def] = (await list(u)).data
    const w = await createWorkspace(u, 'Survivor')
    expect((await t.request('DELETE', `/api/workspaces/${def.id}`, { key: u.key })).status).toBe(204)
    const doc = await ingest(u, { body: 'where does this go?' })
    expect(doc.workspace_id).toBe(w.id)
  })
})

describe('context pack', () => {
  test('pinned, routines, topic facts grouped by metadata.topic → first tag → "general", recent, stats', async () => {
    const u = await t.signUp()
    const w = await createWorkspace(u, 'Agent brain', 'what the agent should know')
    const other = await createWorkspace(u, 'Other')
    await ingest(u, { workspace_id: other.id, body: 'belongs to another workspace', kind: 'fact', metadata: { topic: 'deploy' } })

    const pinned = await ingest(u, {
      workspace_id: w.id,
      title: 'House rules',
      body: 'Always write tests first.',
      kind: 'note',
      pinned: true,
    })
    const routine = await ingest(u, {
      workspace_id: w.id,
      title: 'Morning routine',
      body: 'Check the queue, then triage.',
      kind: 'routine',
    })
    const deploy = await ingest(u, {
      workspace_id: w.id,
      title: 'Deploys',
      body: 'Deploys go out on Tuesdays.',
      kind: 'fact',
      tags: ['ops'],
      metadata: { topic: 'deploy' },
    })
    const db = await ingest(u, {
      workspace_id: w.id,
      title: 'Database',
      body: 'We chose Postgres.',
      kind: 'decision',
      tags: ['database', 'infra'],
    })
    const general = await ingest(u, { workspace_id: w.id, title: 'Lesson', body: 'Small PRs merge faster.', kind: 'lesson' })
    const ui = await ingest(u, {
      workspace_id: w.id,
      title: 'Dark mode',
      body: 'The user prefers dark mode.',
      kind: 'preference',
      tags: ['ui'],
      metadata: { topic: '   ' },
    })
    const plain = await ingest(u, { workspace_id: w.id, title: 'A plain document', body: 'Just a document, not a memory.' })
    const archived = await ingest(u, {
      workspace_id: w.id,
      title: 'Old fact',
      body: 'No longer true.',
      kind: 'fact',
      metadata: { topic: 'deploy' },
    })
    await t.request('POST', `/api/documents/${archived.id}/archive`, { key: u.key })
    const draft = (
      await t.json('POST', '/api/memories/batch-draft', {
        key: u.key,
        body: {
          workspace_id: w.id,
          learnings: [{ kind: 'fact', title: 'Unapproved', body: 'A draft fact.', metadata: { topic: 'deploy' } }],
        },
      })
    ).body.data[0]
    expect((await t.request('POST', `/api/documents/${deploy.id}/link`, { key: u.key, body: { target_id: db.id } })).status).toBe(201)

    const res = await t.json('GET', `/api/workspaces/${w.id}/context`, { key: u.key })
    expect(res.status).toBe(200)
    const pack = res.body
    const ids = (items: { id: string }[]) => items.map((i) => i.id)

    expect(pack.workspace).toEqual({ id: w.id, name: 'Agent brain', description: 'what the agent should know' })
    expect(ids(pack.pinned)).toEqual([pinned.id])
    expect(pack.pinned[0]).toEqual({
      id: pinned.id,
      kind: 'note',
      title: 'House rules',
      excerpt: 'Always write tests first.',
      tags: [],
      updated_at: pinned.updated_at,
    })
    expect(ids(pack.routines)).toEqual([routine.id])

    const topics = Object.fromEntries(pack.topic_facts.map((g: { topic: string; facts: { id: string }[] }) => [g.topic, ids(g.facts)]))
    expect(topics).toEqual({ deploy: [deploy.id], database: [db.id], general: [general.id], ui: [ui.id] })

    // recent: active items of this workspace, newest first
    expect(ids(pack.recent)).toEqual([plain, ui, general, db, deploy, routine, pinned].map((d) => d.id))

    const everything = JSON.stringify(pack)
    for (const hidden of [archived.id, draft.id]) expect(everything).not.toContain(hidden)
    expect(everything).not.toContain('belongs to another workspace')

    expect(pack.stats).toEqual({ documents: 7, memories: 5, pending_drafts: 1, links: 1, last_updated: plain.updated_at })
    expect(pack.truncated).toBe(false)
  })

  test('an empty workspace has an empty pack', async () => {
    const u = await t.signUp()
    const w = await createWorkspace(u, 'Empty')
    const pack = (await t.json('GET', `/api/workspaces/${w.id}/context`, { key: u.key })).body
    expect(pack).toEqual({
      workspace: { id: w.id, name: 'Empty', description: null },
      pinned: [],
      routines: [],
      topic_facts: [],
      recent: [],
      stats: { documents: 0, memories: 0, pending_drafts: 0, links: 0, last_updated: null },
      truncated: false,
    })
  })

  describe('?max_tokens=', () => {
    let u: TestUser
    let wid: string
    let full: any
    const pinnedIds: string[] = []
    const filler = (n: number) => `${n} `.padEnd(260, 'lorem ipsum dolor sit amet ')

    beforeAll(async () => {
      u = await t.signUp()
      wid = (await createWorkspace(u, 'Budgeted')).id
      // pinned items are the smallest, so whatever fits after them, a further pinned item would have fitted first
      for (let i = 0; i < 3; i++)
        pinnedIds.push((await ingest(u, { workspace_id: wid, title: `Pin ${i}`, body: filler(i), kind: 'note', pinned: true })).id)
      for (let i = 0; i < 3; i++)
        await ingest(u, { workspace_id: wid, title: `Routine number ${i}`, body: filler(10 + i), kind: 'routine' })
      for (let i = 0; i < 4; i++)
        await ingest(u, {
          workspace_id: wid,
          title: `A rather longer fact title ${i}`,
          body: filler(20 + i),
          kind: 'fact',
          tags: [`topic-${i % 2}`],
        })
      full = (await t.json('GET', `/api/workspaces/${wid}/context`, { key: u.key })).body
      expect(full.pinned).toHaveLength(3)
      expect(full.routines).toHaveLength(3)
    })

    const count = (pack: any) =>
      pack.pinned.length +
      pack.routines.length +
      pack.recent.length +
      pack.topic_facts.reduce((n: number, g: { facts: unknown[] }) => n + g.facts.length, 0)

    test('a generous budget changes nothing', async () => {
      const res = await t.json('GET', `/api/workspaces/${wid}/context?max_tokens=200000`, { key: u.key })
      expect(res.status).toBe(200)
      expect(res.body.truncated).toBe(false)
      expect(res.body.pinned).toEqual(full.pinned)
      expect(res.body.routines).toEqual(full.routines)
      expect(res.body.topic_facts).toEqual(full.topic_facts)
      expect(res.body.stats).toEqual(full.stats)
    })

    test('a tight budget keeps pinned items first, sets truncated, and fits the budget', async () => {
      for (const budget of [50, 150, 250, 350, 500, 700, 900, 1200]) {
        const res = await t.json('GET', `/api/workspaces/${wid}/context?max_tokens=${budget}`, { key: u.key })
        expect(res.status).toBe(200)
        const pack = res.body
        expect(pack.truncated).toBe(true)
        expect(count(pack)).toBeLessThan(count(full))
        // pinned is a prefix of the full pinned list, and nothing else gets in before all of it
        expect(pack.pinned).toEqual(full.pinned.slice(0, pack.pinned.length))
        if (pack.routines.length + pack.topic_facts.length + pack.recent.length > 0) expect(pack.pinned.length).toBe(3)
        // what is always kept: the workspace and the stats
        expect(pack.workspace).toEqual(full.workspace)
        expect(pack.stats).toEqual(full.stats)
        // within budget (about four characters per token) whenever the budget can hold anything at all
        if (count(pack) > 0) expect(JSON.stringify(pack).length).toBeLessThanOrEqual(budget * 4)
      }
    })

    test('a budget that holds the pinned items but not everything keeps all pinned and drops some of the rest', async () => {
      const res = await t.json('GET', `/api/workspaces/${wid}/context?max_tokens=700`, { key: u.key })
      expect(res.body.pinned.map((i: { id: string }) => i.id)).toEqual(full.pinned.map((i: { id: string }) => i.id))
      expect(res.body.truncated).toBe(true)
    })

    test('the smallest budget (50) still answers a valid pack', async () => {
      const res = await t.json('GET', `/api/workspaces/${wid}/context?max_tokens=50`, { key: u.key })
      expect(res.status).toBe(200)
      expect(res.body.truncated).toBe(true)
      expect(res.body.stats).toEqual(full.stats)
    })
  })
})
