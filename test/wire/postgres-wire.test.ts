// The main flows on the postgres.js driver over the real Postgres wire protocol (PGlite behind pglite-socket),
// booted the production way, so driver-specific behaviour (types, jsonb, arrays, pooling, locks) stays honest.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import postgres from 'postgres'
import { createDb } from '../../db/client'
import { runMigrations } from '../../db/migrate'
import journal from '../../db/migrations/meta/_journal.json'
import type { TestUser } from '../harness'
import { startWireApp, type WireApp } from './wire-harness'

let w: WireApp
let sql: postgres.Sql
// Booting PGlite with pgvector and migrating over the wire takes 4–8 s on a loaded machine.
beforeAll(async () => {
  w = await startWireApp()
  sql = postgres(w.databaseUrl, { max: 1, onnotice: () => {} })
}, 60_000)
afterAll(async () => {
  await sql?.end({ timeout: 5 })
  await w?.close()
}, 30_000)

const PASSWORD = 'correct horse battery'
const email = () => `wire-${crypto.randomUUID().slice(0, 8)}@example.com`
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
// Bun 1.4.5's toMatchObject writes asymmetric matchers (expect.any) into the received object, so ids that
// are used later are checked with toMatch instead; statuses are compared with the body, to show the error.
const expectStatus = (res: { status: number; body: unknown }, status: number) =>
  expect({ status: res.status, body: res.body }).toMatchObject({ status })
const apiCalls = async (key: string) => (await w.json('GET', '/api/usage', { key })).body.api_calls.used as number

describe('boot over the wire', () => {
  test('GET / reports the postgres driver', async () => {
    const res = await w.json('GET', '/')
    expectStatus(res, 200)
    expect(res.body).toMatchObject({ status: 'ok', database: 'postgres' })
    expect(w.deps.dbKind).toBe('postgres')
  })
})

describe('accounts and keys', () => {
  test('sign-up → session → key → bearer request → revoke → the same key gets 401 at once', async () => {
    const signUp = await w.request('POST', '/api/auth/sign-up', { body: { email: email(), password: PASSWORD, name: 'Wire' } })
    expect(signUp.status).toBe(201)
    const { user } = (await signUp.json()) as any
    expect(user).toMatchObject({ name: 'Wire', plan: 'free' })
    expect(user.created_at).toMatch(ISO)
    const cookie = signUp.headers.get('set-cookie')!.split(';')[0]!

    const session = await w.json('GET', '/api/auth/session', { cookie })
    expectStatus(session, 200)
    expect(session.body).toMatchObject({ user: { id: user.id }, via: 'session' })

    const created = await w.json('POST', '/api/keys', { cookie, body: { label: 'wire', scopes: ['read', 'write', 'keys'] } })
    expectStatus(created, 201)
    const key: string = created.body.key
    expect(key).toMatch(/^svc_[0-9A-Za-z]{40}$/)
    expect(created.body).toMatchObject({ prefix: key.slice(0, 16), label: 'wire', tier: 'free', last_used_at: null })

    const byKey = await w.json('GET', '/api/auth/session', { key })
    expectStatus(byKey, 200)
    expect(byKey.body).toMatchObject({ user: { id: user.id }, via: 'key' })
    const listed = await w.json('GET', '/api/keys', { key })
    expectStatus(listed, 200)
    expect(listed.body.data).toHaveLength(1)
    expect(listed.body.data[0]).not.toHaveProperty('key')
    expect(listed.body.data[0].last_used_at).toMatch(ISO)

    const revoked = await w.request('DELETE', `/api/keys/${created.body.id}`, { cookie })
    expect(revoked.status).toBe(204)
    const after = await w.json('GET', '/api/keys', { key })
    expectStatus(after, 401)
    expect(after.body).toEqual({ error: expect.any(String), code: 'unauthenticated' })
    expect((await w.json('GET', '/api/auth/session', { cookie })).status).toBe(200)
  })

  test('sign-in, sign-out and a duplicate email behave as on the embedded driver', async () => {
    const address = email()
    expect((await w.json('POST', '/api/auth/sign-up', { body: { email: address, password: PASSWORD } })).status).toBe(201)
    expect((await w.json('POST', '/api/auth/sign-up', { body: { email: address.toUpperCase(), password: PASSWORD } })).status).toBe(409)
    const signIn = await w.request('POST', '/api/auth/sign-in', { body: { email: address, password: PASSWORD } })
    expect(signIn.status).toBe(200)
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!
    expect((await w.request('POST', '/api/auth/sign-out', { cookie })).status).toBe(204)
    expect((await w.json('GET', '/api/auth/session', { cookie })).status).toBe(401)
  })
})

describe('usage', () => {
  test('api_calls.used grows by exactly the number of authenticated calls, also when they run concurrently', async () => {
    const u = await w.signUp()
    let expected = await apiCalls(u.key) // the usage call counts itself
    for (let i = 0; i < 3; i++) expect((await w.request('GET', '/api/workspaces', { key: u.key })).status).toBe(200)
    expected += 3 + 1
    expect(await apiCalls(u.key)).toBe(expected)

    const statuses = await Promise.all(
      Array.from({ length: 12 }, () => w.request('GET', '/api/workspaces', { key: u.key }).then((r) => r.status)),
    )
    expect(statuses.every((s) => s === 200)).toBe(true)
    expected += 12 + 1
    expect(await apiCalls(u.key)).toBe(expected)
    expect(w.gate?.stats().peakOpen ?? 2).toBeGreaterThan(1) // the pool really used several connections

    // A rejected credential is nobody's call.
    expect((await w.request('GET', '/api/keys', { key: 'svc_' + 'x'.repeat(40) })).status).toBe(401)
    expected += 1
    expect(await apiCalls(u.key)).toBe(expected)
  })
})

describe('workspaces', () => {
  test('list → create → rename → plan cap 402 → delete → the last one cannot be deleted', async () => {
    const u = await w.signUp()
    const initial = await w.json('GET', '/api/workspaces', { key: u.key })
    expectStatus(initial, 200)
    expect(initial.body).toEqual({ data: [expect.objectContaining({ name: 'Default' })], next_cursor: null })
    const defaultWs = initial.body.data[0]
    expect(defaultWs).toMatchObject({ document_count: 0 })
    expect(defaultWs.created_at).toMatch(ISO)

    const created = await w.json('POST', '/api/workspaces', { key: u.key, body: { name: 'Research', description: 'papers' } })
    expectStatus(created, 201)
    expect(created.body.id).toMatch(UUID)
    expect(created.body).toMatchObject({ name: 'Research', description: 'papers', document_count: 0 })

    const renamed = await w.json('PATCH', `/api/workspaces/${created.body.id}`, { key: u.key, body: { name: 'Reading' } })
    expectStatus(renamed, 200)
    expect(renamed.body).toMatchObject({ id: created.body.id, name: 'Reading' })

    const third = await w.json('POST', '/api/workspaces', { key: u.key, body: { name: 'One too many' } })
    expectStatus(third, 402)
    expect(third.body.error).toMatch(/workspace/i)
    expect(third.body.error).toMatch(/pro/)

    const listed = await w.json('GET', '/api/workspaces', { key: u.key })
    expect(listed.body.data.map((x: any) => x.name).sort()).toEqual(['Default', 'Reading'])

    expect((await w.request('DELETE', `/api/workspaces/${created.body.id}`, { key: u.key })).status).toBe(204)
    expect((await w.json('GET', '/api/workspaces', { key: u.key })).body.data.map((x: any) => x.id)).toEqual([defaultWs.id])
    expect((await w.json('DELETE', `/api/workspaces/${defaultWs.id}`, { key: u.key })).status).toBe(409)
    expect((await w.json('DELETE', `/api/workspaces/${created.body.id}`, { key: u.key })).status).toBe(404)
  })

  test('concurrent creations on a free account: exactly one passes the cap, the others get 402', async () => {
    // The bridge runs one transaction at a time (see wire-gate.ts), so this checks the rule and the pooled
    // transactions, not the advisory lock's exclusion, which only a real server can show.
    const u = await w.signUp()
    const results = await Promise.all(['A', 'B', 'C'].map((name) => w.json('POST', '/api/workspaces', { key: u.key, body: { name } })))
    expect(results.map((r) => r.status).sort()).toEqual([201, 402, 402])
    expect((await w.json('GET', '/api/workspaces', { key: u.key })).body.data).toHaveLength(2)
  })

  test('document_count counts the active documents of each workspace', async () => {
    const u = await w.signUp()
    const workspace_id = await defaultWorkspace(u)
    const other = await w.json('POST', '/api/workspaces', { key: u.key, body: { name: 'Other' } })
    const ids: string[] = []
    for (const body of ['first counted body', 'second counted body']) {
      const res = await w.json('POST', '/api/documents', { key: u.key, body: { workspace_id, body } })
      expectStatus(res, 201)
      ids.push(res.body.id)
    }
    await w.request('POST', `/api/documents/${ids[1]}/archive`, { key: u.key })
    const counts = Object.fromEntries(
      (await w.json('GET', '/api/workspaces', { key: u.key })).body.data.map((x: any) => [x.id, x.document_count]),
    )
    expect(counts).toEqual({ [workspace_id]: 1, [other.body.id]: 0 })
    expect((await w.json('PATCH', `/api/workspaces/${workspace_id}`, { key: u.key, body: { name: 'Main' } })).body.document_count).toBe(1)
  })
})

async function defaultWorkspace(u: TestUser): Promise<string> {
  const res = await w.json('GET', '/api/workspaces', { key: u.key })
  expectStatus(res, 200)
  return res.body.data[0].id
}

describe('documents', () => {
  test('ingest → dedup → list → fetch → PATCH → archive → restore → forget → 404', async () => {
    const u = await w.signUp()
    const workspace_id = await defaultWorkspace(u)
    const input = {
      workspace_id,
      title: 'Wire protocol notes',
      body: 'postgres.js speaks the extended query protocol: Parse, Bind, Execute, Sync.',
      tags: ['postgres', 'wire'],
      metadata: { topic: 'drivers', nested: { depth: 2 } },
    }
    const ingested = await w.json('POST', '/api/documents', { key: u.key, body: input })
    expectStatus(ingested, 201)
    const doc = ingested.body
    expect(doc.id).toMatch(UUID)
    expect(doc).toMatchObject({ workspace_id, title: input.title, tags: input.tags, status: 'active', source: 'api', kind: 'document' })
    expect(doc.created_at).toMatch(ISO)

    const again = await w.json('POST', '/api/documents', { key: u.key, body: input })
    expectStatus(again, 200)
    expect(again.body).toMatchObject({ id: doc.id, deduplicated: true })

    const listed = await w.json('GET', `/api/documents?workspace_id=${workspace_id}`, { key: u.key })
    expectStatus(listed, 200)
    expect(listed.body.next_cursor).toBeNull()
    expect(listed.body.data.map((d: any) => d.id)).toEqual([doc.id])

    const fetched = await w.json('GET', `/api/documents/${doc.id}`, { key: u.key })
    expectStatus(fetched, 200)
    expect(fetched.body).toMatchObject({ id: doc.id, body: input.body, tags: input.tags, metadata: input.metadata })
    // jsonb must arrive as an object, not a JSON string stored inside jsonb (a classic postgres.js pitfall).
    const [stored] = await sql`select jsonb_typeof(metadata) as type, array_length(tags, 1) as tags from documents where id = ${doc.id}`
    expect(stored).toEqual({ type: 'object', tags: 2 })

    const patched = await w.json('PATCH', `/api/documents/${doc.id}`, { key: u.key, body: { title: 'Wire notes', tags: ['wire'] } })
    expectStatus(patched, 200)
    expect(patched.body).toMatchObject({ id: doc.id, title: 'Wire notes', tags: ['wire'], body: input.body })
    expect(Date.parse(patched.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(doc.updated_at))

    const archived = await w.json('POST', `/api/documents/${doc.id}/archive`, { key: u.key })
    expectStatus(archived, 200)
    expect(archived.body).toMatchObject({ id: doc.id, status: 'archived' })
    expect((await w.json('GET', `/api/documents/${doc.id}`, { key: u.key })).body.status).toBe('archived')
    expect((await w.json('GET', `/api/documents?workspace_id=${workspace_id}`, { key: u.key })).body.data).toEqual([])
    const archivedList = await w.json('GET', `/api/documents?workspace_id=${workspace_id}&status=archived`, { key: u.key })
    expect(archivedList.body.data.map((d: any) => d.id)).toEqual([doc.id])

    const restored = await w.json('POST', `/api/documents/${doc.id}/restore`, { key: u.key })
    expectStatus(restored, 200)
    expect(restored.body).toMatchObject({ id: doc.id, status: 'active' })
    expect((await w.json('GET', `/api/documents/${doc.id}`, { key: u.key })).body.status).toBe('active')
    expect((await w.json('GET', `/api/documents?workspace_id=${workspace_id}`, { key: u.key })).body.data.map((d: any) => d.id)).toEqual([
      doc.id,
    ])

    expect((await w.request('POST', `/api/documents/${doc.id}/forget`, { key: u.key })).status).toBe(204)
    const gone = await w.json('GET', `/api/documents/${doc.id}`, { key: u.key })
    expectStatus(gone, 404)
    expect(gone.body).toEqual({ error: expect.any(String), code: 'not_found' })
    expect((await sql`select count(*)::int as n from documents where id = ${doc.id}`)[0]).toEqual({ n: 0 })
  })

  test('cursor pages walk every document once; another user gets 404; usage counts documents', async () => {
    const u = await w.signUp()
    const other = await w.signUp()
    const workspace_id = await defaultWorkspace(u)
    const ids: string[] = []
    for (let i = 0; i < 5; i++) {
      const res = await w.json('POST', '/api/documents', {
        key: u.key,
        body: { workspace_id, title: `Page ${i}`, body: `distinct body number ${i}` },
      })
      expectStatus(res, 201)
      ids.push(res.body.id)
    }
    const seen: string[] = []
    let cursor: string | null = null
    do {
      const page: any = await w.json('GET', `/api/documents?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
        key: u.key,
      })
      expectStatus(page, 200)
      expect(page.body.data.length).toBeLessThanOrEqual(2)
      seen.push(...page.body.data.map((d: any) => d.id))
      cursor = page.body.next_cursor
    } while (cursor && seen.length <= ids.length)
    expect(seen.sort()).toEqual([...ids].sort())

    expect((await w.json('GET', `/api/documents/${ids[0]}`, { key: other.key })).status).toBe(404)
    expect((await w.json('GET', '/api/usage', { key: u.key })).body.documents.used).toBe(5)
  })
})

describe('driver encodings', () => {
  test('text[] tags and jsonb metadata with awkward characters round-trip, and ?tag= finds each tag', async () => {
    const u = await w.signUp()
    const tags = ['c++, "quoted"', 'back\\slash', '{braces}', 'NULL', 'émoji 🎉']
    const metadata = { quote: 'a"b\\c', none: null, list: [1, 'two', { three: 3 }], unicode: '日本語' }
    const doc = await w.json('POST', '/api/documents', { key: u.key, body: { body: 'awkward values', tags, metadata } })
    expectStatus(doc, 201)
    const fetched = await w.json('GET', `/api/documents/${doc.body.id}`, { key: u.key })
    expect(fetched.body.tags).toEqual(tags)
    expect(fetched.body.metadata).toEqual(metadata)
    for (const tag of tags) {
      const found = await w.json('GET', `/api/documents?tag=${encodeURIComponent(tag)}`, { key: u.key })
      expect(found.body.data.map((d: any) => d.id)).toEqual([doc.body.id])
    }
  })
})

describe('memories', () => {
  test('batch-draft saves pending drafts; approve makes one an active memory; reject archives the other', async () => {
    const u = await w.signUp()
    const workspace_id = await defaultWorkspace(u)
    const drafted = await w.json('POST', '/api/memories/batch-draft', {
      key: u.key,
      body: {
        workspace_id,
        learnings: [
          {
            kind: 'fact',
            title: 'Driver',
            body: 'The server runs postgres.js in production.',
            metadata: { topic: 'stack', confidence: 0.9, custom: 'kept' },
          },
          { kind: 'preference', title: 'Style', body: 'Answers should be concise.' },
        ],
      },
    })
    expectStatus(drafted, 201)
    const drafts: any[] = drafted.body.data
    expect(drafts).toHaveLength(2)
    for (const d of drafts) expect(d).toMatchObject({ status: 'pending_approval', workspace_id })
    const fact = drafts.find((d) => d.kind === 'fact')!
    const preference = drafts.find((d) => d.kind === 'preference')!

    expect((await w.json('GET', '/api/memories', { key: u.key })).body).toEqual({ data: [], next_cursor: null })
    const draftContext = await w.json('GET', `/api/workspaces/${workspace_id}/context`, { key: u.key })
    expectStatus(draftContext, 200)
    expect(draftContext.body.stats).toEqual({ documents: 0, memories: 0, pending_drafts: 2, links: 0, last_updated: null })

    const approved = await w.json('POST', `/api/documents/${fact.id}/approve`, { cookie: u.cookie })
    expectStatus(approved, 200)
    expect(approved.body).toMatchObject({ id: fact.id, status: 'active', kind: 'fact' })
    const fetched = await w.json('GET', `/api/documents/${fact.id}`, { key: u.key })
    expect(fetched.body.metadata).toMatchObject({ topic: 'stack', confidence: 0.9, custom: 'kept' })

    const memories = await w.json('GET', '/api/memories', { key: u.key })
    expectStatus(memories, 200)
    expect(memories.body.data.map((m: any) => m.id)).toEqual([fact.id])
    expect((await w.json('GET', '/api/memories?kind=preference', { key: u.key })).body.data).toEqual([])

    const rejected = await w.json('POST', `/api/documents/${preference.id}/reject`, { key: u.key })
    expectStatus(rejected, 200)
    expect(rejected.body).toMatchObject({ id: preference.id, status: 'archived' })
    expect((await w.json('GET', `/api/documents/${preference.id}`, { key: u.key })).body.status).toBe('archived')

    // The context pack runs its queries concurrently on the pool: counts and timestamps must survive the driver.
    const context = await w.json('GET', `/api/workspaces/${workspace_id}/context`, { key: u.key })
    expectStatus(context, 200)
    expect(context.body.stats).toMatchObject({ documents: 1, memories: 1, pending_drafts: 0, links: 0 })
    expect(context.body.stats.last_updated).toMatch(ISO)
    expect(context.body.topic_facts).toEqual([{ topic: 'stack', facts: [expect.objectContaining({ id: fact.id, kind: 'fact' })] }])
  })
})

describe('migrations over the wire', () => {
  // Plain arrays: postgres.js result lists carry per-query metadata (statement names) that differs every run.
  const rows = async (query: Promise<postgres.RowList<postgres.Row[]>>) => [...(await query)]
  const snapshot = async () => ({
    applied: await rows(sql`select id, hash, created_at from drizzle.__drizzle_migrations order by id`),
    extensions: await rows(sql`select extname, extversion from pg_extension order by extname`),
    columns: await rows(sql`select table_name, column_name, data_type, is_nullable, column_default from information_schema.columns
                            where table_schema = 'public' order by table_name, ordinal_position`),
    constraints: await rows(sql`select conrelid::regclass::text as tbl, conname, pg_get_constraintdef(oid) as def from pg_constraint
                                where connamespace = 'public'::regnamespace order by 1, 2`),
    indexes: await rows(sql`select indexname, indexdef from pg_indexes where schemaname = 'public' order by indexname`),
    // db/functions, applied after the migrations: a second run skips them, and changes none.
    functions: await rows(sql`select proname, pg_get_functiondef(oid) as def, xmin::text as written from pg_proc
                              where pronamespace = 'public'::regnamespace and prokind = 'f' order by 1, 2`),
    triggers: await rows(
      sql`select tgname, pg_get_triggerdef(oid) as def, xmin::text as written from pg_trigger where not tgisinternal order by 1`,
    ),
    users: await rows(sql`select count(*)::int as n from users`),
  })

  test('a second run changes nothing; two concurrent runs both succeed; the app still works', async () => {
    const before = await snapshot()
    expect(before.applied).toHaveLength(journal.entries.length)
    const database = await createDb(w.config, { poolSize: 1 })
    try {
      await runMigrations(database, w.databaseUrl)
      expect(await snapshot()).toEqual(before)
      const results = await Promise.allSettled([runMigrations(database, w.databaseUrl), runMigrations(database, w.databaseUrl)])
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled'])
      expect(await snapshot()).toEqual(before)
      // PGlite has one session for every connection, so a lock runMigrations forgot to release would show here.
      // Only this database's: a real server may be shared with other test processes migrating theirs.
      const locks = sql`select count(*)::int as n from pg_locks
        where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database())`
      expect((await locks)[0]).toEqual({ n: 0 })
    } finally {
      await database.close()
    }
    expect((await w.json('POST', '/api/auth/sign-up', { body: { email: email(), password: PASSWORD } })).status).toBe(201)
  })
})
