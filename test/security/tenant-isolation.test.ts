// Tenant isolation: user B, holding user A's ids, reaches nothing of A's through any route.
// The {id} routes are read from the app's own /openapi/json, so a route added later without an
// ownership check is swept too (and one whose resource this suite has no fixture for fails loudly).
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import { eq } from 'drizzle-orm'
import { connections, connectors, links } from '../../db/schema'
import { sealSecret } from '../../src/lib/secret-box'
import { encodeCursor } from '../../src/lib/cursor'
import { requirementOf } from '../../src/modules/keys/key-scopes'
import { createTestApp, type TestApp, type TestUser } from '../harness'

// test/setup.ts sets 30 s, but that default is lost for files that run after a src/*.test.ts file; the first
// app of a process migrates the template database, which can take longer than Bun's own 5 s.
setDefaultTimeout(30_000)

let t: TestApp
let A: TestUser
let B: TestUser

/** A's things, of every state. */
const a = {
  workspaces: [] as string[],
  docs: {} as Record<'active' | 'target' | 'archived' | 'draft' | 'memory' | 'pinned' | 'file', string>,
  keyId: '',
  sessionId: '',
  conversations: [] as string[],
  connectors: [] as string[],
  connections: [] as string[],
  responses: [] as string[],
  threads: [] as string[],
  titles: [] as string[],
}
/** B's own things, used where a route needs a second, legitimate id. */
const b = { workspace: '', doc: '', keyId: '', sessionId: '', conversation: '', connector: '', connection: '', response: '', thread: '' }

const aDocIds = () => Object.values(a.docs)
const aIds = () => [
  ...a.workspaces,
  ...aDocIds(),
  a.keyId,
  a.sessionId,
  ...a.conversations,
  ...a.connectors,
  ...a.connections,
  ...a.threads,
]

/** Route prefix → A's ids (what B must not reach) and B's own id of the same kind. */
const fixtures = () => ({
  '/api/documents': { foreign: aDocIds(), own: b.doc },
  '/api/memories': { foreign: [a.docs.draft, a.docs.memory], own: b.doc },
  '/api/workspaces': { foreign: a.workspaces, own: b.workspace },
  '/api/keys': { foreign: [a.keyId], own: b.keyId },
  '/api/sessions': { foreign: [a.sessionId], own: b.sessionId },
  '/api/conversations': { foreign: a.conversations, own: b.conversation },
  '/api/threads': { foreign: a.threads, own: b.thread },
  // Listed before /api/connectors, whose prefix it shares.
  '/api/connectors/connections': { foreign: a.connections, own: b.connection },
  '/api/connectors': { foreign: a.connectors, own: b.connector },
  // Avatars are addressed by user id: A's (who has one) is as missing to B as any other.
  '/api/avatar': { foreign: [A.id], own: B.id },
  // Stored /v1 responses (resp_…): retrieve, input items and delete.
  '/v1/responses': { foreign: a.responses, own: b.response },
})

/** Asks through POST /api/ask and answers the id of the conversation the exchange was saved in. */
async function askConversation(user: TestUser, question: string): Promise<string> {
  const res = await t.request('POST', '/api/ask', { key: user.key, body: { question } })
  const text = await res.text()
  const saved = text
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)))
    .find((e) => e.type === 'saved')
  if (!saved) throw new Error(`ask: ${res.status} ${text.slice(0, 200)}`)
  return saved.conversation.id
}

async function ok<T = any>(method: string, path: string, opts: Parameters<TestApp['json']>[2], expected = [200, 201]): Promise<T> {
  const res = await t.json(method, path, opts)
  if (!expected.includes(res.status)) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body as T
}

/** Everything A can see, read with A's session (so nothing of A's changes by reading it). */
async function snapshotA() {
  const as = { cookie: A.cookie }
  const docs: Record<string, unknown> = {}
  const links: Record<string, unknown> = {}
  for (const id of aDocIds()) {
    docs[id] = await ok('GET', `/api/documents/${id}`, as)
    links[id] = await ok('GET', `/api/documents/${id}/links`, as)
  }
  const lists: Record<string, unknown> = {}
  for (const status of ['active', 'pending_approval', 'archived']) {
    lists[`documents:${status}`] = await ok('GET', `/api/documents?status=${status}&limit=100`, as)
    lists[`memories:${status}`] = await ok('GET', `/api/memories?status=${status}&limit=100`, as)
  }
  const contexts: Record<string, unknown> = {}
  for (const id of a.workspaces) contexts[id] = await ok('GET', `/api/workspaces/${id}/context`, as)
  const conversations: Record<string, unknown> = {}
  for (const id of a.conversations) conversations[id] = await ok('GET', `/api/conversations/${id}`, as)
  const threads: Record<string, unknown> = {}
  for (const id of a.threads) threads[id] = [await ok('GET', `/api/threads/${id}`, as), await ok('GET', `/api/threads/${id}/messages`, as)]
  return {
    threads,
    docs,
    links,
    lists,
    contexts,
    conversations,
    workspaces: await ok('GET', '/api/workspaces', as),
    keys: await ok('GET', '/api/keys', as),
    profile: await ok('GET', '/api/profile', as),
    sources: await ok('GET', '/api/sources', as),
    connectors: await ok('GET', '/api/connectors', as),
    connections: await ok('GET', '/api/connectors/connections', as),
    connectorDetails: await Promise.all(a.connectors.map((id) => ok('GET', `/api/connectors/${id}`, as))),
    responses: await Promise.all(a.responses.map((id) => ok('GET', `/v1/responses/${id}`, { key: A.key }))),
  }
}

beforeAll(async () => {
  // Connector apps configured (never contacted: B's requests must stop before any provider call).
  t = await createTestApp({
    env: {
      DEFAULT_PLAN: 'pro',
      NOTION_CLIENT_ID: 'n-id',
      NOTION_CLIENT_SECRET: 'n-secret',
      CONFLUENCE_CLIENT_ID: 'c-id',
      CONFLUENCE_CLIENT_SECRET: 'c-secret',
    },
  })
  // Keys holding every scope: each one's reach over the other's objects is what is tested, /api/keys included.
  A = await t.signUp({ scopes: ['read', 'write', 'keys'] })
  B = await t.signUp({ scopes: ['read', 'write', 'keys'] })

  a.keyId = (await ok('GET', '/api/keys', { key: A.key })).data[0].id
  a.sessionId = (await ok('GET', '/api/sessions', { cookie: A.cookie })).data[0].id
  a.workspaces.push((await ok('GET', '/api/workspaces', { key: A.key })).data[0].id)
  a.workspaces.push((await ok('POST', '/api/workspaces', { key: A.key, body: { name: 'A secret workspace' } })).id)
  const [ws1, ws2] = a.workspaces as [string, string]
  const ingest = async (body: Record<string, unknown>) => {
    const doc = await ok('POST', '/api/documents', { key: A.key, body })
    a.titles.push(doc.title)
    return doc.id as string
  }
  a.docs.active = await ingest({ workspace_id: ws2, title: 'A secret plan', body: 'The secret plan of user A.', tags: ['secret'] })
  a.docs.target = await ingest({ workspace_id: ws2, title: 'A linked note', body: 'Linked to the plan.', kind: 'note' })
  a.docs.pinned = await ingest({
    workspace_id: ws1,
    title: 'A pinned rule',
    body: 'Pinned by A.',
    pinned: true,
    url: 'https://a.example/rule',
  })
  a.docs.memory = await ingest({
    workspace_id: ws1,
    title: 'A fact',
    body: 'A knows this fact.',
    kind: 'fact',
    metadata: { topic: 'private' },
  })
  // A pending suggestion of A's, which B's POST /api/graph/suggestions/accept must leave pending.
  await t.deps.db.insert(links).values({
    id: t.deps.ids.next(),
    user_id: A.id,
    source_id: a.docs.pinned,
    target_id: await ingest({ workspace_id: ws1, title: 'A related rule', body: 'Related to the pinned rule.' }),
    score: 0.9,
    status: 'pending',
    origin: 'suggested',
  })
  a.docs.archived = await ingest({ workspace_id: ws2, title: 'A archived', body: 'Archived by A.' })
  await ok('POST', `/api/documents/${a.docs.archived}/archive`, { key: A.key })
  await ok('POST', `/api/documents/${a.docs.active}/link`, { key: A.key, body: { target_id: a.docs.target } })
  const drafts = await ok('POST', '/api/memories/batch-draft', {
    key: A.key,
    body: {
      workspace_id: ws2,
      learnings: [{ kind: 'preference', title: 'A draft', body: 'A pending learning.', metadata: { topic: 'private' } }],
    },
  })
  a.docs.draft = drafts.data[0].id
  a.titles.push('A draft', 'A secret workspace', 'A secret chat')
  a.conversations.push(await askConversation(A, 'What is the secret plan?'))
  a.threads.push(
    (
      await ok('POST', '/api/threads', {
        key: A.key,
        body: { title: 'A secret chat', messages: [{ speaker: 'A', content: 'The secret plan is in the vault.' }] },
      })
    ).id,
  )
  a.responses.push(
    (await ok('POST', '/v1/responses', { key: A.key, body: { model: 'service-rag', input: 'What is the secret plan?' } })).id,
  )
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0])
  const form = new FormData()
  form.append('file', new Blob([png], { type: 'image/png' }), 'a.png')
  const uploaded = await t.app.handle(
    new Request('http://localhost/api/avatar', { method: 'POST', headers: { authorization: `Bearer ${A.key}` }, body: form }),
  )
  if (uploaded.status !== 200) throw new Error(`avatar: ${uploaded.status}`)
  // A file A uploaded: its original is as much A's as its text.
  const file = new FormData()
  file.append('file', new Blob([new TextEncoder().encode('# A secret file\n\nThe vault code of user A.')]), 'A secret file.md')
  file.append('workspace_id', ws2)
  const sent = await t.app.handle(
    new Request('http://localhost/api/documents/files', { method: 'POST', headers: { authorization: `Bearer ${A.key}` }, body: file }),
  )
  if (sent.status !== 202) throw new Error(`file: ${sent.status}`)
  a.docs.file = ((await sent.json()) as { id: string }).id
  a.titles.push('A secret file')

  for (const type of ['confluence', 'notion'])
    a.connectors.push((await ok('POST', '/api/connectors', { key: A.key, body: { type, label: `A ${type} wiki` } })).connector.id)
  a.titles.push('A confluence wiki', 'A notion wiki')
  a.connections.push(await connectDirectly(A.id, a.connectors[0]!))

  b.keyId = (await ok('GET', '/api/keys', { key: B.key })).data[0].id
  b.sessionId = (await ok('GET', '/api/sessions', { cookie: B.cookie })).data[0].id
  b.connector = (await ok('POST', '/api/connectors', { key: B.key, body: { type: 'confluence' } })).connector.id
  b.connection = await connectDirectly(B.id, b.connector)
  b.workspace = (await ok('GET', '/api/workspaces', { key: B.key })).data[0].id
  b.doc = (await ok('POST', '/api/documents', { key: B.key, body: { title: 'B own', body: 'B owns this.' } })).id
  b.conversation = await askConversation(B, 'What do I own?')
  b.thread = (await ok('POST', '/api/threads', { key: B.key, body: { title: 'B own chat' } })).id
  b.response = (await ok('POST', '/v1/responses', { key: B.key, body: { model: 'service-rag', input: 'What do I own?' } })).id
})
afterAll(() => t.close())

/** A completed OAuth return, as stored: a connection with sealed tokens, and the connector active on it. */
async function connectDirectly(userId: string, connectorId: string): Promise<string> {
  const id = crypto.randomUUID()
  const now = new Date()
  await t.deps.db.insert(connections).values({
    id,
    user_id: userId,
    provider: 'confluence',
    external_account_id: `site-${id}`,
    account_name: 'A site',
    access_token_enc: sealSecret(t.deps.config.encryptionKey, 'tok', `connection:${id}:access`),
    meta: { cloudId: 'c1', siteUrl: 'https://a.atlassian.net' },
    created_at: now,
    updated_at: now,
  })
  await t.deps.db.update(connectors).set({ connection_id: id, status: 'active' }).where(eq(connectors.id, connectorId))
  return id
}

// ---------- requests synthesised from the OpenAPI document ----------

type Schema = Record<string, any>
interface Operation {
  method: string
  path: string
  params: string[]
  body?: Schema
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete']

async function idOperations(): Promise<{ ops: Operation[]; resolve: (s: Schema) => Schema }> {
  const res = await t.json('GET', '/openapi/json')
  expect(res.status).toBe(200)
  const doc = res.body
  const resolve = (s: Schema): Schema =>
    s?.$ref
      ? resolve(
          s.$ref
            .split('/')
            .slice(1)
            .reduce((o: any, k: string) => o[k], doc),
        )
      : s
  const ops: Operation[] = []
  for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
    if (!path.includes('{')) continue
    // Public sign-in routes take a provider name, not an id of anything a user owns.
    if (path.startsWith('/api/auth/oauth/')) continue
    // /v1/models/{id} takes a model's name (service-rag, the embedder), the same for everyone.
    if (path.startsWith('/v1/models/')) continue
    for (const method of METHODS) {
      const op = item[method]
      if (!op) continue
      const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)
      const body = op.requestBody?.content?.['application/json']?.schema
      ops.push({ method: method.toUpperCase(), path, params, body: body ? resolve(body) : undefined })
    }
  }
  return { ops, resolve }
}

/** A minimal valid value of a JSON schema; UUIDs are B's own document, so only the path id is foreign. */
function sample(schema: Schema, resolve: (s: Schema) => Schema): unknown {
  const s = resolve(schema)
  if ('const' in s) return s.const
  if (s.enum) return s.enum[0]
  if (s.default !== undefined) return s.default
  const union = s.anyOf ?? s.oneOf
  // An object's anyOf of `required` lists is a rule about its members (name or workspace_id), not a union of shapes.
  if (union && !s.properties) return sample(union.find((u: Schema) => resolve(u).type !== 'null') ?? union[0], resolve)
  switch (Array.isArray(s.type) ? s.type.find((x: string) => x !== 'null') : s.type) {
    case 'object': {
      const out: Record<string, unknown> = {}
      const props = Object.entries<Schema>(s.properties ?? {})
      const required = new Set<string>([...(s.required ?? []), ...(union?.[0]?.required ?? [])])
      if (required.size === 0 && (s.minProperties ?? 0) > 0 && props[0]) required.add(props[0][0])
      for (const [k, v] of props) if (required.has(k)) out[k] = sample(v, resolve)
      return out
    }
    case 'array':
      return Array.from({ length: Math.max(1, s.minItems ?? 1) }, () => sample(s.items ?? {}, resolve))
    case 'integer':
    case 'number':
      return s.minimum ?? 1
    case 'boolean':
      return true
    case 'string':
      if (s.format === 'uuid') return b.doc
      if (s.format === 'email') return 'b@example.com'
      if (s.format === 'uri') return 'https://b.example/'
      return 'x'.repeat(Math.max(1, s.minLength ?? 1))
    default:
      return {}
  }
}

/** Bodies that make the request valid in every respect but the foreign id. */
const BODIES: Record<string, () => unknown> = {
  'PATCH /api/documents/{id}': () => ({ title: 'changed by B', body: 'overwritten by B', tags: ['b'], pinned: false }),
  'POST /api/documents/{id}/rate': () => ({ rating: -1 }),
  'POST /api/documents/{id}/link': () => ({ target_id: b.doc }),
  'PATCH /api/workspaces/{id}': () => ({ name: 'renamed by B', description: 'B was here' }),
  'PATCH /api/connectors/{id}': () => ({ label: 'renamed by B', config: {} }),
  'POST /api/connectors/{id}/authorize': () => ({}),
  'PATCH /api/threads/{id}': () => ({ title: 'renamed by B' }),
  'POST /api/threads/{id}/messages': () => ({ messages: [{ speaker: 'B', content: 'B was here' }] }),
}

const REQUIRED_ROUTES = [
  'GET /api/connectors/{id}',
  'PATCH /api/connectors/{id}',
  'DELETE /api/connectors/{id}',
  'POST /api/connectors/{id}/authorize',
  'POST /api/connectors/{id}/sync',
  'GET /api/connectors/{id}/{wiki}/spaces',
  'DELETE /api/connectors/connections/{id}',
  'GET /api/documents/{id}',
  'GET /api/documents/{id}/file',
  'PATCH /api/documents/{id}',
  'DELETE /api/documents/{id}',
  'POST /api/documents/{id}/archive',
  'POST /api/documents/{id}/restore',
  'POST /api/documents/{id}/forget',
  'POST /api/documents/{id}/rate',
  'POST /api/documents/{id}/approve',
  'POST /api/documents/{id}/reject',
  'GET /api/documents/{id}/links',
  'POST /api/documents/{id}/link',
  'DELETE /api/documents/{id}/links/{targetId}',
  'GET /api/documents/{id}/history',
  'GET /api/documents/{id}/versions/{version}',
  'POST /api/documents/{id}/versions/{version}/restore',
  'POST /api/documents/{id}/unapprove',
  'PATCH /api/workspaces/{id}',
  'DELETE /api/workspaces/{id}',
  'GET /api/workspaces/{id}/context',
  'DELETE /api/keys/{id}',
  'DELETE /api/sessions/{id}',
]

const fill = (path: string, values: Record<string, string>) => path.replace(/\{(\w+)\}/g, (_, name: string) => values[name]!)
const as = (cred: 'key' | 'cookie') => (cred === 'key' ? { key: B.key } : { cookie: B.cookie })
const mask = (text: string, ids: string[]) => ids.reduce((s, id) => s.split(id).join('<id>'), text)

describe("B holding A's ids", () => {
  test('every {id} route of the API answers 404, exactly like a missing id, and A is unchanged', async () => {
    const before = await snapshotA()
    const { ops, resolve } = await idOperations()

    const listed = new Set(ops.map((o) => `${o.method} ${o.path}`))
    expect(REQUIRED_ROUTES.filter((r) => !listed.has(r))).toEqual([])

    const uncovered: string[] = []
    const failures: string[] = []
    let attempts = 0
    for (const op of ops) {
      const route = `${op.method} ${op.path}`
      const prefix = Object.keys(fixtures()).find((p) => op.path.startsWith(`${p}/`)) as keyof ReturnType<typeof fixtures> | undefined
      if (!prefix) {
        uncovered.push(route)
        continue
      }
      const { foreign, own } = fixtures()[prefix]
      const body = BODIES[route]?.() ?? (op.body ? sample(op.body, resolve) : undefined)
      // Every param foreign, for each of A's ids; and, with several params, B's own first id with A's others.
      const variants: Record<string, string>[] = []
      for (const id of foreign) {
        const others = foreign.filter((x) => x !== id)
        variants.push(Object.fromEntries(op.params.map((p, i) => [p, i === 0 ? id : (others[i - 1] ?? id)])))
        if (op.params.length > 1) variants.push(Object.fromEntries(op.params.map((p, i) => [p, i === 0 ? own : id])))
      }
      for (const values of variants) {
        // A version is a number, not an id: every document of A has a version 1 (and B's own document is B's to read).
        if ('version' in values) {
          if (Object.values(values).includes(own)) continue
          values.version = '1'
        }
        const foreignIds = Object.entries(values).flatMap(([k, v]) => (v === own || k === 'version' ? [] : [v]))
        const controlValues = Object.fromEntries(
          Object.entries(values).map(([k, v]) => [k, v === own || k === 'version' ? v : crypto.randomUUID()]),
        )
        for (const cred of ['key', 'cookie'] as const) {
          // A route only a person reaches refuses every key alike (403, whatever the id): B's key learns nothing either.
          const expected = cred === 'key' && requirementOf(op.method, op.path.replace(/\{(\w+)\}/g, ':$1')) === 'person' ? 403 : 404
          attempts++
          const path = fill(op.path, values)
          const res = await t.request(op.method, path, { ...as(cred), body })
          const text = await res.text()
          const control = await t.request(op.method, fill(op.path, controlValues), { ...as(cred), body })
          const controlText = await control.text()
          const leaks = a.titles.filter((title) => text.includes(title))
          if (
            res.status !== expected ||
            control.status !== expected ||
            mask(text, foreignIds) !==
              mask(
                controlText,
                Object.entries(controlValues).flatMap(([k, v]) => (v === own || k === 'version' ? [] : [v])),
              ) ||
            leaks.length
          ) {
            failures.push(
              `${op.method} ${path} via ${cred} → ${res.status} ${text.slice(0, 200)} (missing id → ${control.status} ${controlText.slice(0, 120)})`,
            )
          }
        }
      }
    }
    // `uncovered`: a new {id} route whose resource has no fixture above — add A's ids of that kind.
    expect({ uncovered, failures }).toEqual({ uncovered: [], failures: [] })
    expect(attempts).toBeGreaterThan(100)

    expect(await snapshotA()).toEqual(before)
    expect((await t.request('GET', '/api/keys', { key: A.key })).status).toBe(200)
  })

  test("POST /api/documents into A's workspace is 404 and stores nothing; so is GET /check", async () => {
    const before = await snapshotA()
    for (const ws of a.workspaces) {
      for (const cred of ['key', 'cookie'] as const) {
        expect(
          (
            await t.request('POST', '/api/documents', {
              ...as(cred),
              body: { workspace_id: ws, title: 'planted by B', body: `planted by B into ${ws}` },
            })
          ).status,
        ).toBe(404)
        expect(
          (
            await t.request('POST', '/api/documents', {
              ...as(cred),
              body: { workspace_id: ws, url: 'https://a.example/rule', body: 'Pinned by A.' },
            })
          ).status,
        ).toBe(404)
        expect((await t.request('GET', `/api/documents/check?workspace_id=${ws}&size_bytes=10`, as(cred))).status).toBe(404)
        expect(
          (await t.request('GET', `/api/documents/check?workspace_id=${ws}&url=${encodeURIComponent('https://a.example/rule')}`, as(cred)))
            .status,
        ).toBe(404)
      }
    }
    expect(await snapshotA()).toEqual(before)
    const bDocs = (await ok('GET', '/api/documents?limit=100', { key: B.key })).data.map((d: { title: string }) => d.title)
    expect(bDocs).not.toContain('planted by B')
  })

  test("POST /api/memories/batch-draft into A's workspace is 404 and stores nothing", async () => {
    const before = await snapshotA()
    for (const ws of a.workspaces) {
      const res = await t.json('POST', '/api/memories/batch-draft', {
        key: B.key,
        body: {
          workspace_id: ws,
          learnings: [{ kind: 'fact', title: 'planted draft', body: 'B plants a draft', metadata: { supersedes: a.docs.memory } }],
        },
      })
      expect(res.status).toBe(404)
    }
    expect(await snapshotA()).toEqual(before)
  })

  test("accepting the suggestions of A's workspace, or reading its graph, is 404 and A's suggestion stays pending", async () => {
    const before = await snapshotA()
    for (const ws of a.workspaces) {
      for (const cred of ['key', 'cookie'] as const) {
        const res = await t.json('POST', '/api/graph/suggestions/accept', { ...as(cred), body: { workspace_id: ws, min_score: 0 } })
        expect(res.status).toBe(404)
        expect((await t.request('GET', `/api/graph?workspace_id=${ws}`, as(cred))).status).toBe(404)
      }
    }
    expect(await snapshotA()).toEqual(before)
    const pending = (await ok('GET', `/api/documents/${a.docs.pinned}/links`, { key: A.key })).data
    expect(pending.map((l: { status: string }) => l.status)).toEqual(['pending'])
  })

  test("linking B's document to A's is 404 both ways, and A's links are unchanged", async () => {
    const before = await snapshotA()
    for (const target of aDocIds()) {
      expect((await t.request('POST', `/api/documents/${b.doc}/link`, { key: B.key, body: { target_id: target } })).status).toBe(404)
      expect((await t.request('POST', `/api/documents/${target}/link`, { key: B.key, body: { target_id: b.doc } })).status).toBe(404)
      expect((await t.request('DELETE', `/api/documents/${b.doc}/links/${target}`, { key: B.key })).status).toBe(404)
    }
    expect((await ok('GET', `/api/documents/${b.doc}/links`, { key: B.key })).data).toEqual([])
    expect(await snapshotA()).toEqual(before)
  })

  test("bulk delete of A's ids reports them all as not_found and deletes nothing", async () => {
    const before = await snapshotA()
    const res = await t.json('DELETE', '/api/documents/bulk', { key: B.key, body: { ids: aDocIds() } })
    expect(res.status).toBe(200)
    expect(res.body.deleted).toEqual([])
    expect([...res.body.not_found].sort()).toEqual([...aDocIds()].sort())

    // mixed with one of B's own: only B's goes
    const mine = (await ok('POST', '/api/documents', { key: B.key, body: { body: 'B throwaway' } })).id
    const mixed = await t.json('DELETE', '/api/documents/bulk', { cookie: B.cookie, body: { ids: [mine, ...aDocIds()] } })
    expect(mixed.status).toBe(200)
    expect(mixed.body.deleted).toEqual([mine])
    expect([...mixed.body.not_found].sort()).toEqual([...aDocIds()].sort())

    // workspace and key ids are not documents either
    const other = await t.json('DELETE', '/api/documents/bulk', { key: B.key, body: { ids: [...a.workspaces, a.keyId] } })
    expect(other.body.deleted).toEqual([])
    expect(await snapshotA()).toEqual(before)
  })
})

describe("B's lists never contain A's ids", () => {
  const expectClean = (label: string, value: unknown) => {
    const text = JSON.stringify(value)
    const found = aIds().filter((id) => text.includes(id))
    expect({ label, found }).toEqual({ label, found: [] })
    for (const title of a.titles) expect({ label, title, leaked: text.includes(title) }).toEqual({ label, title, leaked: false })
  }

  test('documents and memories, of every status, with and without filters', async () => {
    for (const cred of ['key', 'cookie'] as const) {
      for (const status of ['active', 'pending_approval', 'archived']) {
        expectClean(`documents ${status}`, await ok('GET', `/api/documents?status=${status}&limit=100`, as(cred)))
        expectClean(`memories ${status}`, await ok('GET', `/api/memories?status=${status}&limit=100`, as(cred)))
        for (const kind of ['fact', 'preference', 'note', 'document']) {
          expectClean(`documents ${status} ${kind}`, await ok('GET', `/api/documents?status=${status}&kind=${kind}&limit=100`, as(cred)))
        }
        expectClean(`documents ${status} tag`, await ok('GET', `/api/documents?status=${status}&tag=secret`, as(cred)))
        expectClean(`memories ${status} preference`, await ok('GET', `/api/memories?status=${status}&kind=preference`, as(cred)))
      }
      expectClean('documents default', await ok('GET', '/api/documents', as(cred)))
      expectClean('memories default', await ok('GET', '/api/memories', as(cred)))
    }
  })

  test("filtering by A's workspace answers exactly what a missing workspace answers: 404", async () => {
    for (const ws of a.workspaces) {
      for (const status of ['active', 'pending_approval', 'archived']) {
        for (const route of ['/api/documents', '/api/memories']) {
          const missingId = crypto.randomUUID()
          const theirs = await t.json('GET', `${route}?workspace_id=${ws}&status=${status}`, { key: B.key })
          const missing = await t.json('GET', `${route}?workspace_id=${missingId}&status=${status}`, { key: B.key })
          expect(theirs.status).toBe(404)
          expect(missing.status).toBe(404)
          expect(theirs.body.error.replace(ws, '<id>')).toEqual(missing.body.error.replace(missingId, '<id>'))
          // The message names only the id B sent, exactly as for a workspace that does not exist.
        }
      }
    }
  })

  test('workspaces, keys, usage, the session, conversations, sources, stats and profile', async () => {
    for (const cred of ['key', 'cookie'] as const) {
      expectClean('conversations', await ok('GET', '/api/conversations?limit=100', as(cred)))
      expectClean('sources', await ok('GET', '/api/sources?limit=100', as(cred)))
      expectClean('stats', await ok('GET', '/api/stats', as(cred)))
      expectClean('profile', await ok('GET', '/api/profile', as(cred)))
      expectClean('workspaces', await ok('GET', '/api/workspaces?limit=100', as(cred)))
      expectClean('keys', await ok('GET', '/api/keys', as(cred)))
      expectClean('usage', await ok('GET', '/api/usage', as(cred)))
      expectClean('session', await ok('GET', '/api/auth/session', as(cred)))
      expectClean("B's own context", await ok('GET', `/api/workspaces/${b.workspace}/context`, as(cred)))
    }
    expectClean('sessions', await ok('GET', '/api/sessions', as('cookie')))
  })

  test("a cursor made from A's ids pages B's own data only", async () => {
    // Cursors are made of row ids (UUIDs); a session's id is a hash, never a cursor.
    for (const id of aIds().filter((id) => id !== a.sessionId)) {
      const cursor = encodeCursor(id)
      for (const route of ['/api/documents', '/api/memories', '/api/workspaces']) {
        const res = await t.json('GET', `${route}?cursor=${cursor}`, { key: B.key })
        expect(res.status).toBe(200)
        expectClean(`${route} cursor`, res.body)
      }
    }
  })
})

describe('A afterwards', () => {
  test("A still has everything, and A's key still works", async () => {
    for (const id of aDocIds()) expect((await t.request('GET', `/api/documents/${id}`, { key: A.key })).status).toBe(200)
    const ws = (await ok('GET', '/api/workspaces', { key: A.key })).data.map((w: { id: string; name: string }) => w.name).sort()
    expect(ws).toEqual(['A secret workspace', 'Default'])
    const draft = await ok('GET', `/api/documents/${a.docs.draft}`, { key: A.key })
    expect(draft.status).toBe('pending_approval')
    const archived = await ok('GET', `/api/documents/${a.docs.archived}`, { key: A.key })
    expect(archived.status).toBe('archived')
    const links = (await ok('GET', `/api/documents/${a.docs.active}/links`, { key: A.key })).data
    expect(links.map((l: { document: { id: string } }) => l.document.id)).toEqual([a.docs.target])
  })
})
