// The graph that informs, over HTTP: memories joined to what they were drafted from (a cited document, a thread's
// messages, an ask conversation), and every suggestion above a score accepted in one call — validated, owned,
// and a no-op when run again.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { links } from '../../db/schema'
import { approve, saveDrafts } from '../memories/memories.fixtures'
import { createTestApp, type TestApp, type TestUser } from '../harness'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

async function ingest(u: TestUser, body: Record<string, unknown>): Promise<string> {
  const res = await t.json('POST', '/api/documents', { key: u.key, body })
  expect(res.status).toBe(201)
  return res.body.id
}
const defaultWorkspace = async (u: TestUser) => (await t.json('GET', '/api/settings', { key: u.key })).body.default_workspace_id as string
const graphOf = async (u: TestUser, ws: string) => (await t.json('GET', `/api/graph?workspace_id=${ws}`, { key: u.key })).body

/** Pending suggestions with chosen scores between consecutive documents of `ids`. */
async function suggest(u: TestUser, ids: string[], scores: number[]) {
  await t.deps.db.insert(links).values(
    scores.map((score, i) => ({
      id: t.deps.ids.next(),
      user_id: u.id,
      source_id: ids[i]!,
      target_id: ids[i + 1]!,
      score,
      status: 'pending',
      origin: 'suggested',
    })),
  )
}

describe('memories joined to their evidence', () => {
  test("a memory drafted from a thread's message is joined to that thread; one citing a note, to the note", async () => {
    const u = await t.signUp()
    const ws = await defaultWorkspace(u)
    const thread = await t.json('POST', '/api/threads', {
      key: u.key,
      body: { workspace_id: ws, title: 'Standup, Monday', messages: [{ speaker: 'Al', content: 'We ship the release on Fridays.' }] },
    })
    expect(thread.status).toBe(201)
    const message = thread.body.results.results[0].document.id
    const note = await ingest(u, { workspace_id: ws, title: 'Release checklist', body: 'Tag, build, publish.' })
    const [fromThread, fromNote] = await saveDrafts(t, u, ws, [
      { kind: 'decision', title: 'Releases on Fridays', body: 'The team releases on Fridays.', metadata: { evidence: message } },
      { kind: 'fact', title: 'Releases are tagged', body: 'Every release is tagged first.', metadata: { evidence: note } },
    ])
    await approve(t, u, fromThread.id)
    await approve(t, u, fromNote.id)

    const graph = await graphOf(u, ws)
    // The message is no node; its thread is a source the memory is joined to.
    expect(graph.nodes.map((n: { id: string }) => n.id).sort()).toEqual([fromThread.id, fromNote.id, note].sort())
    expect(graph.sources).toEqual([{ id: thread.body.id, title: 'Standup, Monday', kind: 'thread' }])
    expect(graph.evidence).toEqual(
      expect.arrayContaining([
        { source: fromThread.id, target: thread.body.id, kind: 'evidence' },
        { source: fromNote.id, target: note, kind: 'evidence' },
      ]),
    )
    expect(graph.evidence).toHaveLength(2)
    // Evidence is not a link: the links stay as they were.
    expect(graph.edges).toEqual([])
  })

  test('a memory an ask conversation drafted is joined to that conversation', async () => {
    const u = await t.signUp()
    const ws = await defaultWorkspace(u)
    const asked = await t.json('POST', '/api/ask', { key: u.key, body: { question: 'When do we release?', stream: false } })
    expect(asked.status).toBe(200)
    const conversation = asked.body.conversation.id
    const [draft] = await saveDrafts(t, u, ws, [
      {
        kind: 'fact',
        title: 'Asked about releases',
        body: 'Someone asked when releases happen.',
        metadata: { conversation_id: conversation },
      },
    ])
    await approve(t, u, draft.id)
    const graph = await graphOf(u, ws)
    expect(graph.sources).toEqual([expect.objectContaining({ id: conversation, kind: 'chat' })])
    expect(graph.evidence).toEqual([{ source: draft.id, target: conversation, kind: 'evidence' }])
  })

  test("evidence naming another user's document or conversation draws nothing of theirs", async () => {
    const owner = await t.signUp()
    const stranger = await t.signUp()
    const theirs = await ingest(owner, { title: 'Owner secret', body: 'The owner keeps this.' })
    const ws = await defaultWorkspace(stranger)
    const [draft] = await saveDrafts(t, stranger, ws, [
      { kind: 'fact', title: 'Borrowed', body: 'Cites what is not mine.', metadata: { evidence: theirs, conversation_id: theirs } },
    ])
    await approve(t, stranger, draft.id)
    const graph = await graphOf(stranger, ws)
    expect(graph.evidence).toEqual([])
    expect(graph.sources).toEqual([])
    expect(JSON.stringify(graph)).not.toContain('Owner secret')
  })
})

describe('POST /api/graph/suggestions/accept', () => {
  test('accepts the suggestions at or above the score, leaves the rest pending, and a second run makes none', async () => {
    const u = await t.signUp()
    const ws = await defaultWorkspace(u)
    const docs: string[] = []
    for (let i = 0; i < 5; i++)
      docs.push(await ingest(u, { workspace_id: ws, title: `Doc ${i}`, body: `Body number ${i} ${crypto.randomUUID()}` }))
    await suggest(u, docs, [0.95, 0.8, 0.7, 0.4])

    const first = await t.json('POST', '/api/graph/suggestions/accept', { key: u.key, body: { workspace_id: ws, min_score: 0.7 } })
    expect(first.status).toBe(200)
    expect(first.body).toEqual({ accepted: 3, min_score: 0.7 })
    const statuses = (await graphOf(u, ws)).edges.map((e: { score: number; status: string }) => [Math.round(e.score * 100), e.status])
    expect(statuses).toEqual([
      [95, 'completed'],
      [80, 'completed'],
      [70, 'completed'],
      [40, 'pending'],
    ])

    const again = await t.json('POST', '/api/graph/suggestions/accept', { key: u.key, body: { workspace_id: ws, min_score: 0.7 } })
    expect(again.body).toEqual({ accepted: 0, min_score: 0.7 })

    // Each link made is in the activity record, with the threshold that made it and the key that asked.
    const made = (await t.json('GET', '/api/activity?action=link.create', { key: u.key })).body.data
    expect(made).toHaveLength(3)
    expect(made.every((e: any) => e.summary.accepted_suggestion && e.summary.min_score === 0.7 && e.actor.kind === 'key')).toBe(true)
  })

  test("a threshold too small for the scores' type (1e-174, found by fuzzing) accepts every suggestion, not a 500", async () => {
    const u = await t.signUp()
    const ws = await defaultWorkspace(u)
    const docs: string[] = []
    for (let i = 0; i < 3; i++)
      docs.push(await ingest(u, { workspace_id: ws, title: `Tiny ${i}`, body: `Body ${i} ${crypto.randomUUID()}` }))
    await suggest(u, docs, [0.9, 0.01])
    const res = await t.json('POST', '/api/graph/suggestions/accept', {
      key: u.key,
      body: { workspace_id: ws, min_score: 1.855222786020823e-174 },
    })
    expect(res.status).toBe(200)
    expect(res.body.accepted).toBe(2)
  })

  test("only this workspace's suggestions between active documents are accepted", async () => {
    const u = await t.signUp()
    const ws = await defaultWorkspace(u)
    const other = (await t.json('POST', '/api/workspaces', { key: u.key, body: { name: 'Other' } })).body.id
    const here = [await ingest(u, { workspace_id: ws, body: 'here one' }), await ingest(u, { workspace_id: ws, body: 'here two' })]
    const there = [await ingest(u, { workspace_id: other, body: 'there one' }), await ingest(u, { workspace_id: other, body: 'there two' })]
    const archived = [here[1]!, await ingest(u, { workspace_id: ws, body: 'soon archived' })]
    await suggest(u, here, [0.9])
    await suggest(u, there, [0.9])
    await suggest(u, archived, [0.9])
    await t.json('POST', `/api/documents/${archived[1]}/archive`, { key: u.key })

    const res = await t.json('POST', '/api/graph/suggestions/accept', { key: u.key, body: { workspace_id: ws, min_score: 0 } })
    expect(res.body.accepted).toBe(1)
    expect((await graphOf(u, other)).edges.map((e: { status: string }) => e.status)).toEqual(['pending'])
  })

  test('bad input is a 400 with { error }; no workspace, a 404; an API key without write, a 403', async () => {
    const u = await t.signUp()
    const ws = await defaultWorkspace(u)
    const post = (body: unknown, key = u.key) => t.json('POST', '/api/graph/suggestions/accept', { key, body })
    for (const body of [
      {},
      { workspace_id: ws },
      { min_score: 0.5 },
      { workspace_id: 'nope', min_score: 0.5 },
      { workspace_id: ws, min_score: 1.5 },
      { workspace_id: ws, min_score: -0.1 },
      { workspace_id: ws, min_score: 'high' },
    ]) {
      const res = await post(body)
      expect({ body, status: res.status }).toEqual({ body, status: 400 })
      expect(typeof res.body.error).toBe('string')
    }
    const missing = crypto.randomUUID()
    expect((await post({ workspace_id: missing, min_score: 0.5 })).body).toEqual({
      error: `workspace ${missing} not found`,
      code: 'not_found',
    })
    const reader = await t.signUp({ scopes: ['read'] })
    expect((await post({ workspace_id: await defaultWorkspace(reader), min_score: 0.5 }, reader.key)).status).toBe(403)
  })

  test("another user's workspace is a 404 exactly like a missing one, and their suggestions stay pending", async () => {
    const owner = await t.signUp()
    const stranger = await t.signUp()
    const ws = await defaultWorkspace(owner)
    await suggest(owner, [await ingest(owner, { body: 'owner one' }), await ingest(owner, { body: 'owner two' })], [0.9])
    for (const auth of [{ key: stranger.key }, { cookie: stranger.cookie }]) {
      const res = await t.json('POST', '/api/graph/suggestions/accept', { ...auth, body: { workspace_id: ws, min_score: 0 } })
      expect(res.status).toBe(404)
      expect(res.body).toEqual({ error: `workspace ${ws} not found`, code: 'not_found' })
    }
    expect((await graphOf(owner, ws)).edges.map((e: { status: string }) => e.status)).toEqual(['pending'])
  })
})
