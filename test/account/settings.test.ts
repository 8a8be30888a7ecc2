// /api/settings: a new account starts with its sign-up workspace as the default, hybrid search and concise
// answers; each setting can be changed on its own; bad values are refused naming the field; and the settings
// do what they say — ingest lands in the default workspace, search runs in the chosen mode, and detailed
// answers quote more than concise ones.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { drainJobs } from '../../src/jobs/worker'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { ask, citedSentences, createWorkspace, getSettings, ingest, patchSettings, workspaceIds } from './account.fixtures'

// test/setup.ts sets 30 s, but that default is lost for files that run after a src/*.test.ts file.
setDefaultTimeout(30_000)

let t: TestApp
beforeAll(async () => {
  // The hash embedder makes semantic and hybrid search really available (the default local model cannot be
  // downloaded into an in-memory DATA_DIR, and then every mode runs by keyword).
  t = await createTestApp({ env: { EMBEDDING_PROVIDER: 'hash', DEFAULT_PLAN: 'pro' } })
})
afterAll(() => t.close())

describe('reading and changing settings', () => {
  test('a new account: the workspace made at sign-up is the default, search is hybrid, answers are concise', async () => {
    const u = await t.signUp()
    const [only] = await workspaceIds(t, u)
    expect(await getSettings(t, u)).toEqual({
      default_workspace_id: only!,
      search_mode: 'hybrid',
      answer_style: 'concise',
      remember_conversations: false,
    })
    // The same with the session cookie the dashboard uses.
    expect((await t.json('GET', '/api/settings', { cookie: u.cookie })).body).toEqual({
      default_workspace_id: only!,
      search_mode: 'hybrid',
      answer_style: 'concise',
      remember_conversations: false,
    })
  })

  test('each field changes on its own and stays changed; the others are kept', async () => {
    const u = await t.signUp()
    const [first] = await workspaceIds(t, u)
    const second = await createWorkspace(t, u, 'Research')

    expect(await patchSettings(t, u, { search_mode: 'keyword' })).toEqual({
      default_workspace_id: first!,
      search_mode: 'keyword',
      answer_style: 'concise',
      remember_conversations: false,
    })
    expect(await patchSettings(t, u, { answer_style: 'detailed', remember_conversations: false })).toEqual({
      default_workspace_id: first!,
      search_mode: 'keyword',
      answer_style: 'detailed',
      remember_conversations: false,
    })
    expect(await patchSettings(t, u, { default_workspace_id: second.id })).toEqual({
      default_workspace_id: second.id,
      search_mode: 'keyword',
      answer_style: 'detailed',
      remember_conversations: false,
    })
    expect(await patchSettings(t, u, { search_mode: 'semantic', answer_style: 'concise', remember_conversations: false })).toEqual({
      default_workspace_id: second.id,
      search_mode: 'semantic',
      answer_style: 'concise',
      remember_conversations: false,
    })
    expect(await patchSettings(t, u, { search_mode: 'hybrid' })).toEqual({
      default_workspace_id: second.id,
      search_mode: 'hybrid',
      answer_style: 'concise',
      remember_conversations: false,
    })
    expect(await getSettings(t, u)).toEqual({
      default_workspace_id: second.id,
      search_mode: 'hybrid',
      answer_style: 'concise',
      remember_conversations: false,
    })
  })

  test('the dashboard can change settings with its session cookie (from its own origin)', async () => {
    const u = await t.signUp()
    const res = await t.json('PATCH', '/api/settings', { cookie: u.cookie, body: { answer_style: 'detailed' } })
    expect(res.status).toBe(200)
    expect(res.body.answer_style).toBe('detailed')
    const foreign = await t.json('PATCH', '/api/settings', {
      cookie: u.cookie,
      headers: { origin: 'https://evil.example' },
      body: { answer_style: 'concise' },
    })
    expect(foreign.status).toBe(403)
    expect((await getSettings(t, u)).answer_style).toBe('detailed')
  })

  test("settings belong to their user: one user changing theirs leaves another's alone", async () => {
    const a = await t.signUp()
    const b = await t.signUp()
    const before = await getSettings(t, b)
    await patchSettings(t, a, { search_mode: 'semantic', answer_style: 'detailed', remember_conversations: false })
    expect(await getSettings(t, b)).toEqual(before)
  })
})

describe('refusals', () => {
  const invalid: [string, Record<string, unknown>][] = [
    ['search_mode', { search_mode: 'fuzzy' }],
    ['search_mode', { search_mode: 1 }],
    ['answer_style', { answer_style: 'verbose' }],
    ['answer_style', { answer_style: null }],
    ['default_workspace_id', { default_workspace_id: 'not-a-uuid' }],
    ['default_workspace_id', { default_workspace_id: 42 }],
    ['remember_conversations', { remember_conversations: 'yes' }],
    ['remember_conversations', { remember_conversations: null }],
  ]
  for (const [field, body] of invalid) {
    test(`${JSON.stringify(body)} → 400 naming ${field}; nothing changes`, async () => {
      const u = await t.signUp()
      const before = await getSettings(t, u)
      const res = await t.json('PATCH', '/api/settings', { key: u.key, body })
      expect(res.status).toBe(400)
      expect(res.body.error).toContain(field)
      expect(await getSettings(t, u)).toEqual(before)
    })
  }

  test('an invalid value among valid ones changes nothing at all', async () => {
    const u = await t.signUp()
    const before = await getSettings(t, u)
    const res = await t.json('PATCH', '/api/settings', { key: u.key, body: { answer_style: 'detailed', search_mode: 'fuzzy' } })
    expect(res.status).toBe(400)
    expect(res.body.error).toContain('search_mode')
    expect(await getSettings(t, u)).toEqual(before)
  })

  test('an empty body → 400 saying what can be given', async () => {
    const u = await t.signUp()
    const res = await t.json('PATCH', '/api/settings', { key: u.key, body: {} })
    expect(res.status).toBe(400)
    for (const field of ['default_workspace_id', 'search_mode', 'answer_style', 'remember_conversations'])
      expect(res.body.error).toContain(field)
  })

  test("another user's workspace as the default → 404, like a workspace that does not exist; nothing changes", async () => {
    const u = await t.signUp()
    const other = await t.signUp()
    const [theirs] = await workspaceIds(t, other)
    const before = await getSettings(t, u)

    const foreign = await t.json('PATCH', '/api/settings', { key: u.key, body: { default_workspace_id: theirs, search_mode: 'keyword' } })
    expect(foreign.status).toBe(404)
    expect(typeof foreign.body.error).toBe('string')
    const missing = await t.json('PATCH', '/api/settings', { key: u.key, body: { default_workspace_id: crypto.randomUUID() } })
    expect(missing.status).toBe(404)
    // Same answer for both: nothing says the other workspace exists.
    expect(foreign.body.error.replace(theirs!, 'ID')).toBe(missing.body.error.replace(/[0-9a-f-]{36}/, 'ID'))

    expect(await getSettings(t, u)).toEqual(before)
    // And the other user's documents did not start landing anywhere new.
    expect(await getSettings(t, other)).toEqual({
      default_workspace_id: theirs!,
      search_mode: 'hybrid',
      answer_style: 'concise',
      remember_conversations: false,
    })
  })

  test('without credentials → 401', async () => {
    expect((await t.json('GET', '/api/settings')).status).toBe(401)
    expect((await t.json('PATCH', '/api/settings', { body: { search_mode: 'keyword' } })).status).toBe(401)
  })
})

describe('the default workspace', () => {
  test('ingest without workspace_id lands in the default workspace, and follows it when it changes', async () => {
    const u = await t.signUp()
    const [first] = await workspaceIds(t, u)
    const research = await createWorkspace(t, u, 'Research')

    expect((await ingest(t, u, { body: 'Lands in the sign-up workspace.' })).workspace_id).toBe(first!)
    await patchSettings(t, u, { default_workspace_id: research.id })
    expect((await ingest(t, u, { body: 'Lands in Research now.' })).workspace_id).toBe(research.id)
    // An explicit workspace_id still wins.
    expect((await ingest(t, u, { workspace_id: first, body: 'Asked for the first one.' })).workspace_id).toBe(first!)
  })

  test('deleting the default workspace clears the setting; ingest without workspace_id then lands in the oldest remaining workspace', async () => {
    const u = await t.signUp()
    const [signUpWorkspace] = await workspaceIds(t, u)
    const notes = await createWorkspace(t, u, 'Notes')
    const later = await createWorkspace(t, u, 'Later')

    expect((await t.request('DELETE', `/api/workspaces/${signUpWorkspace}`, { key: u.key })).status).toBe(204)
    expect(await getSettings(t, u)).toEqual({
      default_workspace_id: null,
      search_mode: 'hybrid',
      answer_style: 'concise',
      remember_conversations: false,
    })

    const doc = await ingest(t, u, { body: 'Where does this go when there is no default?' })
    expect(doc.workspace_id).toBe(notes.id)
    expect(doc.workspace_id).not.toBe(later.id)
    // The setting stays cleared (ingest does not pick a new default) and can be set again.
    expect((await getSettings(t, u)).default_workspace_id).toBeNull()
    expect((await patchSettings(t, u, { default_workspace_id: later.id })).default_workspace_id).toBe(later.id)
    expect((await ingest(t, u, { body: 'Now the default is Later.' })).workspace_id).toBe(later.id)
  })

  test('the default can be cleared with null; ingest then uses the oldest workspace', async () => {
    const u = await t.signUp()
    const [first] = await workspaceIds(t, u)
    const second = await createWorkspace(t, u, 'Second')
    await patchSettings(t, u, { default_workspace_id: second.id })
    expect(await patchSettings(t, u, { default_workspace_id: null })).toEqual({
      default_workspace_id: null,
      search_mode: 'hybrid',
      answer_style: 'concise',
      remember_conversations: false,
    })
    expect((await ingest(t, u, { body: 'No default: the oldest workspace.' })).workspace_id).toBe(first!)
  })
})

describe('search_mode is the default mode of GET /api/search', () => {
  // From the hybrid suite: the neighbour shares no word with the question but is its closest semantic match,
  // so it is found by hybrid and semantic search and never by keyword search.
  const q = 'what is the capital of the kingdom of the north'
  const KEYWORD = 'The capital moved south after the flood.'
  const NEIGHBOUR = 'What is the name of the king of the hill? It is the name of the game.'

  let u: TestUser
  let keywordDoc: string
  let neighbourDoc: string
  beforeAll(async () => {
    u = await t.signUp()
    keywordDoc = (await ingest(t, u, { body: KEYWORD })).id
    neighbourDoc = (await ingest(t, u, { body: NEIGHBOUR })).id
    await drainJobs(t.deps)
  })

  const search = async (query: string) => {
    const res = await t.json('GET', `/api/search?${query}`, { key: u.key })
    expect({ status: res.status, error: res.body?.error }).toEqual({ status: 200, error: undefined })
    return { mode: res.body.mode as string, ids: res.body.results.map((r: { document: { id: string } }) => r.document.id) as string[] }
  }
  const qs = (extra = '') => `q=${encodeURIComponent(q)}${extra}`

  test('by default hybrid: the keyword match first, the semantic neighbour after it', async () => {
    await patchSettings(t, u, { search_mode: 'hybrid' })
    const res = await search(qs())
    expect(res.mode).toBe('hybrid')
    expect(res.ids.slice(0, 2)).toEqual([keywordDoc, neighbourDoc])
  })

  test('search_mode=keyword: a search without mode runs by keyword (the neighbour is not found)', async () => {
    await patchSettings(t, u, { search_mode: 'keyword' })
    const res = await search(qs())
    expect(res.mode).toBe('keyword')
    expect(res.ids).toEqual([keywordDoc])
  })

  test('search_mode=semantic: a search without mode runs semantically (the neighbour ranks first)', async () => {
    await patchSettings(t, u, { search_mode: 'semantic' })
    const res = await search(qs())
    expect(res.mode).toBe('semantic')
    expect(res.ids[0]).toBe(neighbourDoc)
  })

  test('an explicit mode still wins over the setting', async () => {
    await patchSettings(t, u, { search_mode: 'keyword' })
    const hybrid = await search(qs('&mode=hybrid'))
    expect(hybrid.mode).toBe('hybrid')
    expect(hybrid.ids).toContain(neighbourDoc)
    expect((await search(qs('&mode=semantic'))).mode).toBe('semantic')
    // And the setting is untouched by the explicit choice.
    expect((await search(qs())).mode).toBe('keyword')
  })

  test("one user's search_mode does not change another's searches", async () => {
    await patchSettings(t, u, { search_mode: 'keyword' })
    const other = await t.signUp()
    const res = await t.json('GET', `/api/search?${qs()}`, { key: other.key })
    expect(res.status).toBe(200)
    expect(res.body.mode).toBe('hybrid')
  })
})

describe('answer_style: detailed answers quote more than concise ones', () => {
  const DOCS = [
    {
      title: 'Backup schedule',
      body: 'Billing database backups run nightly at 02:00 UTC. Billing backups are kept for 35 days. Billing backups are copied to a second region.',
    },
    {
      title: 'Backup restores',
      body: 'Restores of billing backups are rehearsed every quarter. A billing backup restore takes about forty minutes. Failed billing backups page the on-call engineer.',
    },
    {
      title: 'Backup encryption',
      body: 'Billing backups are encrypted with a dedicated key. The billing backup key is rotated every year.',
    },
    { title: 'Lemon cake', body: 'A recipe for lemon cake with a crisp sugar glaze. Bake it for forty minutes.' },
  ]
  const QUESTION = 'What happens to billing backups?'

  test('the same question over the same documents: the detailed answer has more cited sentences, including every concise one', async () => {
    const u = await t.signUp()
    for (const doc of DOCS) await ingest(t, u, doc)

    const concise = await ask(t, u, { question: QUESTION })
    await patchSettings(t, u, { answer_style: 'detailed', remember_conversations: false })
    const detailed = await ask(t, u, { question: QUESTION })
    // Two separate conversations: the second answer is not a follow-up of the first.
    expect(detailed.conversationId).not.toBe(concise.conversationId)

    const short = citedSentences(concise.answer)
    const long = citedSentences(detailed.answer)
    expect(short.length).toBeGreaterThan(0)
    expect(long.length).toBeGreaterThan(short.length)
    expect(detailed.answer.length).toBeGreaterThan(concise.answer.length)
    for (const sentence of short) expect(long).toContain(sentence)
    // Every quoted sentence is about backups (the cake recipe is never quoted).
    for (const sentence of long) expect(sentence.toLowerCase()).toContain('backup')

    // And back to concise: the short answer again, word for word.
    await patchSettings(t, u, { answer_style: 'concise', remember_conversations: false })
    expect((await ask(t, u, { question: QUESTION })).answer).toBe(concise.answer)
  })

  test('/v1/chat/completions follows the setting too', async () => {
    const u = await t.signUp()
    for (const doc of DOCS) await ingest(t, u, doc)
    const complete = async () => {
      const res = await t.json('POST', '/v1/chat/completions', {
        key: u.key,
        body: { model: 'service-rag', messages: [{ role: 'user', content: QUESTION }] },
      })
      expect({ status: res.status, error: res.body?.error }).toEqual({ status: 200, error: undefined })
      return res.body.choices[0].message.content as string
    }
    const concise = await complete()
    await patchSettings(t, u, { answer_style: 'detailed', remember_conversations: false })
    const detailed = await complete()
    expect(citedSentences(detailed).length).toBeGreaterThan(citedSentences(concise).length)
  })
})
