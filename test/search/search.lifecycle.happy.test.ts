// Search, happy paths around the documents' lives: filters (workspace, kind, tag, source), which states are
// searchable (only active: never archived, drafts, deleted or forgotten), freshness after PATCH and
// re-ingest, and snippets taken from the matching passage of a long document.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { eq, sql } from 'drizzle-orm'
import { chunks, postings } from '../../db/schema'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { createWorkspace, defaultWorkspaceId } from '../documents/documents.fixtures'
import { approve, saveDrafts } from '../memories/memories.fixtures'
import { act, add, search, searchIds, searchRaw } from './search.fixtures'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

const idSet = async (u: TestUser, params: Parameters<typeof searchIds>[2]) => new Set(await searchIds(t, u, params))

describe('filters', () => {
  test('workspace_id, kind, tag and source each narrow the results, alone and together', async () => {
    const u = await t.signUp()
    const home = await defaultWorkspaceId(t, u)
    const other = await createWorkspace(t, u, 'Coast')
    const plain = await add(t, u, { title: 'Lighthouse A', body: 'The lighthouse keeper logs the weather.', tags: ['coast'] })
    const note = await add(t, u, { title: 'Lighthouse B', body: 'A note about the lighthouse lamp.', kind: 'note', tags: ['inland'] })
    const elsewhere = await add(t, u, { title: 'Lighthouse C', body: 'The lighthouse on the cliff.', workspace_id: other, tags: ['coast'] })
    const viaMcp = await add(t, u, { title: 'Lighthouse D', body: 'An agent saved this lighthouse fact.', source: 'mcp' })
    const memory = await add(t, u, { title: 'Lighthouse E', body: 'The lighthouse was built in 1850.', kind: 'fact' })
    const clip = await t.json('POST', '/api/documents', {
      cookie: u.cookie,
      body: { title: 'Lighthouse F', body: 'A clipped lighthouse page.', url: 'https://example.com/lighthouse' },
    })
    expect(clip.status).toBe(201)
    await add(t, u, { title: 'Harbour', body: 'Boats in the harbour.', tags: ['coast'] })

    const q = 'lighthouse'
    expect(await idSet(u, { q })).toEqual(new Set([plain.id, note.id, elsewhere.id, viaMcp.id, memory.id, clip.body.id]))
    expect(await idSet(u, { q, workspace_id: other })).toEqual(new Set([elsewhere.id]))
    expect(await idSet(u, { q, workspace_id: home })).toEqual(new Set([plain.id, note.id, viaMcp.id, memory.id, clip.body.id]))
    expect(await idSet(u, { q, kind: 'note' })).toEqual(new Set([note.id]))
    expect(await idSet(u, { q, kind: 'fact' })).toEqual(new Set([memory.id]))
    expect(await idSet(u, { q, kind: 'webpage' })).toEqual(new Set([clip.body.id]))
    expect(await idSet(u, { q, kind: 'decision' })).toEqual(new Set())
    expect(await idSet(u, { q, tag: 'coast' })).toEqual(new Set([plain.id, elsewhere.id]))
    expect(await idSet(u, { q, tag: 'coas' })).toEqual(new Set())
    expect(await idSet(u, { q, source: 'mcp' })).toEqual(new Set([viaMcp.id]))
    expect(await idSet(u, { q, source: 'extension' })).toEqual(new Set([clip.body.id]))
    expect(await idSet(u, { q, tag: 'coast', workspace_id: home })).toEqual(new Set([plain.id]))
    expect(await idSet(u, { q, kind: 'note', source: 'mcp' })).toEqual(new Set())
  })

  test('filters apply before the limit: the best match inside the filter is returned, not nothing', async () => {
    const u = await t.signUp()
    const other = await createWorkspace(t, u, 'Far')
    for (let i = 0; i < 3; i++) await add(t, u, { title: 'Compass compass', body: `Compass and compass again, copy ${i}.` })
    const weak = await add(t, u, {
      title: 'Travel',
      body: `${'We walked for a long time. '.repeat(30)} A compass helped.`,
      workspace_id: other,
      tags: ['far'],
    })
    expect(await searchIds(t, u, { q: 'compass', workspace_id: other, limit: 1 })).toEqual([weak.id])
    expect(await searchIds(t, u, { q: 'compass', tag: 'far', limit: 1 })).toEqual([weak.id])
  })

  test('an unknown workspace_id is 404, not an empty list', async () => {
    const u = await t.signUp()
    const res = await searchRaw(t, u, { q: 'anything', workspace_id: '01900000-0000-7000-8000-000000000000' })
    expect(res.status).toBe(404)
    expect(res.body.error).toBeString()
  })
})

describe('only active documents are searchable', () => {
  test('an archived document disappears at once and restore brings it back', async () => {
    const u = await t.signUp()
    const doc = await add(t, u, { title: 'Pelican', body: 'Pelicans scoop fish in their bills.' })
    expect(await searchIds(t, u, 'pelicans')).toEqual([doc.id])
    await act(t, u, 'POST', `/api/documents/${doc.id}/archive`, 200)
    expect(await searchIds(t, u, 'pelicans')).toEqual([])
    await act(t, u, 'POST', `/api/documents/${doc.id}/restore`, 200)
    expect(await searchIds(t, u, 'pelicans')).toEqual([doc.id])
  })

  test('drafts stay invisible until approved, and appear the moment they are; rejected ones never do', async () => {
    const u = await t.signUp()
    const ws = await defaultWorkspaceId(t, u)
    const [kept, rejected] = await saveDrafts(t, u, ws, [
      { kind: 'fact', title: 'Otter habitat', body: 'Otters live along clean rivers.' },
      { kind: 'lesson', title: 'Otter diet', body: 'Otters eat crayfish and fish.' },
    ])
    expect(await searchIds(t, u, 'otters')).toEqual([])
    expect(await searchIds(t, u, { q: 'otters', kind: 'fact' })).toEqual([])
    expect(await searchIds(t, u, { q: 'otters', source: 'agent' })).toEqual([])

    await approve(t, u, kept!.id)
    const res = await search(t, u, 'otters')
    expect(res.results.map((r) => r.document.id)).toEqual([kept!.id])
    expect(res.results[0]!.document).toMatchObject({ status: 'active', kind: 'fact' })

    await act(t, u, 'POST', `/api/documents/${rejected!.id}/reject`, 200)
    expect(await searchIds(t, u, 'otters')).toEqual([kept!.id])
  })

  test('approving a draft that supersedes a memory swaps which one is found', async () => {
    const u = await t.signUp()
    const ws = await defaultWorkspaceId(t, u)
    const old = await add(t, u, { title: 'Standup time', body: 'The standup is at nine.', kind: 'fact' })
    const [draft] = await saveDrafts(t, u, ws, [
      { kind: 'fact', title: 'Standup time', body: 'The standup moved to ten.', metadata: { supersedes: old.id } },
    ])
    expect(await searchIds(t, u, 'standup')).toEqual([old.id])
    await approve(t, u, draft!.id)
    expect(await searchIds(t, u, 'standup')).toEqual([draft!.id])
  })

  test('deleted documents, one at a time or in bulk, are gone from search', async () => {
    const u = await t.signUp()
    const one = await add(t, u, { title: 'Glacier one', body: 'The glacier retreated.' })
    const two = await add(t, u, { title: 'Glacier two', body: 'The glacier calved.' })
    const three = await add(t, u, { title: 'Glacier three', body: 'The glacier grew.' })
    expect((await t.request('DELETE', `/api/documents/${one.id}`, { key: u.key })).status).toBe(204)
    expect(await idSet(u, 'glacier')).toEqual(new Set([two.id, three.id]))
    await act(t, u, 'DELETE', '/api/documents/bulk', 200, { ids: [two.id, three.id] })
    expect(await searchIds(t, u, 'glacier')).toEqual([])
  })

  test('deleting a workspace removes its documents from search', async () => {
    const u = await t.signUp()
    const ws = await createWorkspace(t, u, 'Temporary')
    await add(t, u, { title: 'Dune', body: 'Sand dunes move with the wind.', workspace_id: ws })
    const kept = await add(t, u, { title: 'Dune', body: 'Dunes near the sea.' })
    expect((await t.request('DELETE', `/api/workspaces/${ws}`, { key: u.key })).status).toBe(204)
    expect(await searchIds(t, u, 'dunes')).toEqual([kept.id])
  })

  test('a forgotten document is purged from search: not found, no index rows, no weight in the statistics', async () => {
    const u = await t.signUp()
    const stays = await add(t, u, { title: 'Comet', body: 'A comet crossed the sky in March.' })
    await add(t, u, { title: 'Filler', body: 'Nothing about the sky here.' })
    const before = (await search(t, u, 'comet')).results[0]!.signals.keyword_score
    const secret = await add(t, u, { title: 'Comet secret', body: 'The comet observatory code is 4471.' })
    expect(await idSet(u, 'comet')).toEqual(new Set([stays.id, secret.id]))
    expect((await search(t, u, 'comet')).results.find((r) => r.document.id === stays.id)!.signals.keyword_score).not.toBe(before)

    expect((await t.request('POST', `/api/documents/${secret.id}/forget`, { key: u.key })).status).toBe(204)
    const after = await search(t, u, 'comet')
    expect(after.results.map((r) => r.document.id)).toEqual([stays.id])
    expect(after.results[0]!.signals.keyword_score).toBeCloseTo(before!, 9)
    expect(await searchIds(t, u, 'observatory')).toEqual([])
    const [p] = await t.deps.db.select({ n: sql<number>`count(*)::int` }).from(postings).where(eq(postings.document_id, secret.id))
    const [c] = await t.deps.db.select({ n: sql<number>`count(*)::int` }).from(chunks).where(eq(chunks.document_id, secret.id))
    expect({ postings: p!.n, chunks: c!.n }).toEqual({ postings: 0, chunks: 0 })
  })
})

describe('freshness: what was written is what is found, immediately', () => {
  test('after a PATCH of the body the old word no longer finds the document and the new word does', async () => {
    const u = await t.signUp()
    const doc = await add(t, u, { title: 'Breakfast', body: 'Toast with marmalade.' })
    expect(await searchIds(t, u, 'marmalade')).toEqual([doc.id])
    await act(t, u, 'PATCH', `/api/documents/${doc.id}`, 200, { body: 'Toast with chutney.' })
    expect(await searchIds(t, u, 'marmalade')).toEqual([])
    expect(await searchIds(t, u, 'chutney')).toEqual([doc.id])
    expect(await searchIds(t, u, 'toast')).toEqual([doc.id])
  })

  test('after a PATCH of the title likewise, and the body is still found', async () => {
    const u = await t.signUp()
    const doc = await add(t, u, { title: 'Albatross sighting', body: 'Seen from the ferry deck.' })
    expect(await searchIds(t, u, 'albatross')).toEqual([doc.id])
    await act(t, u, 'PATCH', `/api/documents/${doc.id}`, 200, { title: 'Cormorant sighting' })
    expect(await searchIds(t, u, 'albatross')).toEqual([])
    const res = await search(t, u, 'cormorant')
    expect(res.results.map((r) => r.document.id)).toEqual([doc.id])
    expect(res.results[0]!.document.title).toBe('Cormorant sighting')
    expect(await searchIds(t, u, 'ferry')).toEqual([doc.id])
  })

  test('re-ingesting the same URL (deduplicated update) re-indexes the new content', async () => {
    const u = await t.signUp()
    const url = 'https://example.com/menu'
    const first = await add(t, u, { title: 'Menu', body: 'Today: lasagne.', url })
    const again = await t.json('POST', '/api/documents', { key: u.key, body: { title: 'Menu', body: 'Today: risotto.', url } })
    expect(again.status).toBe(200)
    expect(again.body.id).toBe(first.id)
    expect(await searchIds(t, u, 'lasagne')).toEqual([])
    expect(await searchIds(t, u, 'risotto')).toEqual([first.id])
  })

  test('a new document is found right after ingest, before any background indexing', async () => {
    const u = await t.signUp()
    const doc = await add(t, u, { title: 'Fresh', body: 'Sourdough starter needs feeding.' })
    expect(doc.index_status).toBe('pending')
    expect(await searchIds(t, u, 'sourdough')).toEqual([doc.id])
  })
})

describe('snippets', () => {
  test('a word deep in a ~300 KB document is found, and the snippet is the passage that holds it', async () => {
    const u = await t.signUp()
    const filler = (from: number, count: number) =>
      Array.from(
        { length: count },
        (_, i) => `Paragraph ${from + i}: the committee reviewed the quarterly budget and agreed on minor changes.`,
      ).join('\n')
    const head = filler(0, 1700)
    const tail = filler(1700, 1700)
    const body = `${head}\nDeep inside, the field team finally photographed a quetzalcoatlus skeleton in the quarry.\n${tail}`
    expect(body.indexOf('quetzalcoatlus')).toBeGreaterThan(100_000)
    expect(body.length).toBeGreaterThan(250_000)
    expect(body.length).toBeLessThan(400_000)
    const doc = await add(t, u, { title: 'Committee minutes', body })
    await add(t, u, { title: 'Other minutes', body: 'The committee reviewed the budget.' })

    const res = await search(t, u, 'quetzalcoatlus')
    expect(res.results.map((r) => r.document.id)).toEqual([doc.id])
    const { snippet } = res.results[0]!
    expect(snippet).toContain('quetzalcoatlus')
    expect(snippet.length).toBeLessThan(1000)
    expect(snippet).not.toContain('Paragraph 0:')

    // Typed as a prefix, the snippet still shows the whole word.
    const typed = await search(t, u, 'quetzal')
    expect(typed.results.map((r) => r.document.id)).toEqual([doc.id])
    expect(typed.results[0]!.snippet).toContain('quetzalcoatlus')
  })

  test('in a long document, the snippet comes from the passage matching most of the query words', async () => {
    const u = await t.signUp()
    const filler = (n: number) => Array.from({ length: n }, (_, i) => `Line ${i} about the weather and the tides.`).join(' ')
    const body = `The harbour master spoke. ${filler(200)} The harbour master inspected the trawler nets at dawn. ${filler(200)}`
    const doc = await add(t, u, { title: 'Port log', body })
    const res = await search(t, u, 'trawler nets')
    expect(res.results.map((r) => r.document.id)).toEqual([doc.id])
    expect(res.results[0]!.snippet).toContain('trawler')
    expect(res.results[0]!.snippet).toContain('nets')
  })
})
