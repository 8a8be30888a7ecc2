// Memories, happy paths: an agent saves learnings as drafts that stay invisible until a person approves
// them; approval makes them memories (archiving what they supersede), rejection archives them.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { defaultWorkspaceId, listIds } from '../documents/documents.fixtures'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { approve, learning, saveDrafts } from './memories.fixtures'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

async function newUser(): Promise<{ u: TestUser; ws: string }> {
  const u = await t.signUp()
  return { u, ws: await defaultWorkspaceId(t, u) }
}

const contextIds = async (u: TestUser, ws: string) => {
  const res = await t.json('GET', `/api/workspaces/${ws}/context`, { key: u.key })
  expect(res.status).toBe(200)
  const p = res.body
  const ids = [...p.pinned, ...p.routines, ...p.topic_facts.flatMap((g: any) => g.facts), ...p.recent].map((i: any) => i.id)
  return { ids: new Set(ids), pack: p }
}

describe('saving learnings as drafts', () => {
  test('one learning becomes one pending draft written by the agent', async () => {
    const { u, ws } = await newUser()
    const res = await t.json('POST', '/api/memories/batch-draft', {
      key: u.key,
      body: {
        workspace_id: ws,
        learnings: [
          {
            kind: 'preference',
            title: 'Prefers tabs',
            body: 'The user indents with tabs.',
            tags: ['style'],
            metadata: { topic: 'code style', confidence: 0.9, evidence: 'said so', custom: 'kept' },
          },
        ],
      },
    })
    expect(res.status).toBe(201)
    expect(res.body.data).toHaveLength(1)
    expect(res.body.data[0]).toMatchObject({
      kind: 'preference',
      title: 'Prefers tabs',
      body: 'The user indents with tabs.',
      excerpt: 'The user indents with tabs.',
      tags: ['style'],
      workspace_id: ws,
      status: 'pending_approval',
      source: 'agent',
      metadata: { topic: 'code style', confidence: 0.9, evidence: 'said so', custom: 'kept' },
    })
  })

  test('25 learnings are all saved as pending drafts, in order', async () => {
    const { u, ws } = await newUser()
    const learnings = Array.from({ length: 25 }, (_, i) => learning({ title: `Item ${i}` }))
    const drafts = await saveDrafts(t, u, ws, learnings)
    expect(drafts).toHaveLength(25)
    expect(drafts.map((d) => d.title)).toEqual(learnings.map((l) => l.title))
    expect(new Set(drafts.map((d) => d.status))).toEqual(new Set(['pending_approval']))
    expect(new Set(drafts.map((d) => d.source))).toEqual(new Set(['agent']))
    expect(new Set(drafts.map((d) => d.id)).size).toBe(25)
  })
})

describe('drafts stay invisible until approved', () => {
  test('drafts are absent from documents, memories and the context pack, but listed as pending', async () => {
    const { u, ws } = await newUser()
    const [fact, routine] = await saveDrafts(t, u, ws, [learning({ kind: 'fact' }), learning({ kind: 'routine' })])

    expect(await listIds(t, u, '/api/documents?limit=100')).toEqual([])
    expect(await listIds(t, u, '/api/documents?kind=fact')).toEqual([])
    expect(await listIds(t, u, '/api/memories?limit=100')).toEqual([])
    expect(await listIds(t, u, '/api/memories?kind=routine')).toEqual([])
    const before = await contextIds(u, ws)
    expect(before.ids.size).toBe(0)
    expect(before.pack.stats).toMatchObject({ memories: 0, pending_drafts: 2 })

    expect(new Set(await listIds(t, u, '/api/memories?status=pending_approval'))).toEqual(new Set([fact.id, routine.id]))

    const approvedFact = await approve(t, u, fact.id)
    expect(approvedFact.status).toBe('active')
    await approve(t, u, routine.id)

    expect(new Set(await listIds(t, u, '/api/memories'))).toEqual(new Set([fact.id, routine.id]))
    expect(new Set(await listIds(t, u, '/api/documents'))).toEqual(new Set([fact.id, routine.id]))
    expect(await listIds(t, u, '/api/memories?status=pending_approval')).toEqual([])
    const after = await contextIds(u, ws)
    expect(after.ids).toEqual(new Set([fact.id, routine.id]))
    expect(after.pack.routines.map((r: any) => r.id)).toEqual([routine.id])
    expect(after.pack.stats).toMatchObject({ memories: 2, pending_drafts: 0 })
  })

  test('a rejected draft is archived and never becomes a memory', async () => {
    const { u, ws } = await newUser()
    const [draft] = await saveDrafts(t, u, ws, [learning()])
    const res = await t.json('POST', `/api/documents/${draft.id}/reject`, { key: u.key })
    expect(res.status).toBe(200)
    expect(res.body.status).toBe('archived')
    expect(await listIds(t, u, '/api/memories')).toEqual([])
    expect(await listIds(t, u, '/api/memories?status=pending_approval')).toEqual([])
    expect(await listIds(t, u, '/api/memories?status=archived')).toEqual([draft.id])
    expect((await contextIds(u, ws)).pack.stats.pending_drafts).toBe(0)
  })
})

describe('superseding a memory', () => {
  test('approving a draft that supersedes an active memory archives the old one', async () => {
    const { u, ws } = await newUser()
    const [old] = await saveDrafts(t, u, ws, [learning({ kind: 'decision', title: 'Use MySQL' })])
    await approve(t, u, old.id)
    const [replacement] = await saveDrafts(t, u, ws, [
      learning({ kind: 'decision', title: 'Use Postgres', metadata: { supersedes: old.id } }),
    ])

    // Until the replacement is approved, the old memory stays in force.
    expect(await listIds(t, u, '/api/memories')).toEqual([old.id])
    await approve(t, u, replacement.id)

    expect(await listIds(t, u, '/api/memories')).toEqual([replacement.id])
    expect((await t.json('GET', `/api/documents/${old.id}`, { key: u.key })).body.status).toBe('archived')
    expect(await listIds(t, u, '/api/memories?status=archived')).toEqual([old.id])
  })

  test("a draft cannot supersede another user's memory", async () => {
    const a = await newUser()
    const b = await newUser()
    const [theirs] = await saveDrafts(t, a.u, a.ws, [learning()])
    await approve(t, a.u, theirs.id)
    const [mine] = await saveDrafts(t, b.u, b.ws, [learning({ metadata: { supersedes: theirs.id } })])
    await approve(t, b.u, mine.id)
    expect((await t.json('GET', `/api/documents/${theirs.id}`, { key: a.u.key })).body.status).toBe('active')
  })
})

describe('listing memories', () => {
  test('memories filter by kind and page with a cursor; plain documents are not memories', async () => {
    const { u, ws } = await newUser()
    await t.json('POST', '/api/documents', { key: u.key, body: { body: 'a plain document', kind: 'note' } })
    const kinds = ['fact', 'lesson', 'fact', 'routine', 'fact', 'decision', 'preference']
    const drafts = await saveDrafts(
      t,
      u,
      ws,
      kinds.map((kind) => learning({ kind })),
    )
    for (const d of drafts) await approve(t, u, d.id)

    const facts = await listIds(t, u, '/api/memories?kind=fact')
    expect(new Set(facts)).toEqual(new Set(drafts.filter((d) => d.kind === 'fact').map((d) => d.id)))
    expect(await listIds(t, u, '/api/memories?kind=lesson')).toEqual([drafts[1].id])

    const seen: string[] = []
    let cursor: string | null = null
    let pages = 0
    do {
      const res: { status: number; body: any } = await t.json(
        'GET',
        `/api/memories?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { key: u.key },
      )
      expect(res.status).toBe(200)
      expect(res.body.data.length).toBeLessThanOrEqual(3)
      seen.push(...res.body.data.map((d: any) => d.id))
      cursor = res.body.next_cursor
      pages++
    } while (cursor)
    expect(pages).toBe(3)
    expect(seen).toHaveLength(7)
    expect(new Set(seen)).toEqual(new Set(drafts.map((d) => d.id)))
    for (const item of (await t.json('GET', '/api/memories?limit=100', { key: u.key })).body.data) {
      expect(['fact', 'preference', 'decision', 'routine', 'lesson']).toContain(item.kind)
      expect(item).not.toHaveProperty('body')
    }
  })

  test('memories can be narrowed to a workspace', async () => {
    const { u, ws } = await newUser()
    const other = (await t.json('POST', '/api/workspaces', { key: u.key, body: { name: 'Other' } })).body.id
    const [here] = await saveDrafts(t, u, ws, [learning()])
    const [there] = await saveDrafts(t, u, other, [learning()])
    await approve(t, u, here.id)
    await approve(t, u, there.id)
    expect(await listIds(t, u, `/api/memories?workspace_id=${other}`)).toEqual([there.id])
  })
})
