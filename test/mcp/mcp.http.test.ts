// The MCP server over Streamable HTTP at /mcp, driven by the SDK's Client with a bearer key against a real
// listening server: the tool list, each tool's real effect through the REST API, tool errors, and auth.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider'
import { MockLanguageModelV4 } from 'ai/test'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { MCP_TOOLS } from '../../src/mcp/mcp.server'
import type { TestUser } from '../harness'
import { call, errorText, httpClient, startMcpServer, structured, type McpTestServer } from './server'

let s: McpTestServer
let user: TestUser
let client: Client

beforeAll(async () => {
  // A low search rate, to see that tools meet the plan's limits like any REST caller.
  s = await startMcpServer({ PLAN_FREE_SEARCH_PER_MIN: '5' })
  user = await s.t.signUp()
  client = await httpClient(s.url, user.key)
})
afterAll(async () => {
  await client?.close()
  await s.stop()
})

const defaultWorkspace = async (u: TestUser) => (await s.t.json('GET', '/api/workspaces', { key: u.key })).body.data[0].id as string

describe('tools over HTTP', () => {
  test('lists every tool, each with a title, a description, schemas and annotations', async () => {
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual([...MCP_TOOLS].sort())
    for (const tool of tools) {
      expect(tool.title).toBeString()
      expect(tool.description).toBeString()
      expect(tool.inputSchema.type).toBe('object')
      expect(tool.outputSchema?.type).toBe('object')
      expect(tool.annotations?.openWorldHint).toBe(false)
    }
    const annotations = Object.fromEntries(tools.map((t) => [t.name, t.annotations]))
    for (const read of ['search', 'get_document', 'list_workspaces', 'get_workspace_context'])
      expect(annotations[read]).toMatchObject({ readOnlyHint: true })
    expect(annotations.add_document).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true })
    expect(annotations.add_documents).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true })
    expect(annotations.save_learnings).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false })
    expect(annotations.ask).toMatchObject({ readOnlyHint: false, destructiveHint: false })
  })

  test('add_document stores a document (source mcp) that search finds and get_document reads', async () => {
    const added = structured(
      await call(client, 'add_document', {
        title: 'Zephyr deploys',
        body: 'We deploy the zephyr service on Tuesdays after standup.',
        tags: ['ops'],
      }),
    )
    expect(added).toMatchObject({ title: 'Zephyr deploys', tags: ['ops'], status: 'active', kind: 'document', deduplicated: false })
    const rest = await s.t.json('GET', `/api/documents/${added.id}`, { key: user.key })
    expect(rest.body).toMatchObject({ id: added.id, source: 'mcp', body: 'We deploy the zephyr service on Tuesdays after standup.' })

    const again = structured(
      await call(client, 'add_document', { title: 'Zephyr deploys', body: 'We deploy the zephyr service on Tuesdays after standup.' }),
    )
    expect(again).toMatchObject({ id: added.id, deduplicated: true })

    const found = structured(await call(client, 'search', { query: 'zephyr tuesdays', limit: 5 }))
    expect(found).toMatchObject({ query: 'zephyr tuesdays', matched: 'all' })
    expect(found.results.map((r: { id: string }) => r.id)).toEqual([added.id])
    expect(found.results[0].snippet).toContain('zephyr')

    const doc = await call(client, 'get_document', { id: added.id })
    expect(structured(doc)).toMatchObject({
      id: added.id,
      title: 'Zephyr deploys',
      source: 'mcp',
      body: 'We deploy the zephyr service on Tuesdays after standup.',
    })
    // The same result as JSON text, for clients that read only text.
    expect(JSON.parse((doc.content[0] as { text: string }).text)).toEqual(doc.structuredContent)
  })

  test('add_documents stores many at once, one result per document in order, a refused one beside the stored ones', async () => {
    const stranger = await s.t.signUp()
    const theirs = await defaultWorkspace(stranger)
    const body = 'Kestrels hover over the east meadow at dusk.'
    const done = structured(
      await call(client, 'add_documents', {
        documents: [
          { title: 'Kestrels', body },
          { title: 'Kestrels', body, tags: ['birds'] },
          { workspace_id: theirs, body: 'Not yours.' },
        ],
      }),
    )
    expect(done).toMatchObject({ created: 1, deduplicated: 1, failed: 1 })
    expect(done.results.map((r: { status: number }) => r.status)).toEqual([201, 200, 404])
    expect(done.results[1].document).toMatchObject({ id: done.results[0].document.id, tags: ['birds'], deduplicated: true })
    expect(done.results[2].error).toBe(`workspace ${theirs} not found`)
    const rest = await s.t.json('GET', `/api/documents/${done.results[0].document.id}`, { key: user.key })
    expect(rest.body).toMatchObject({ source: 'mcp', body })
    const found = structured(await call(client, 'search', { query: 'kestrels meadow', limit: 5 }))
    expect(found.results.map((r: { id: string }) => r.id)).toEqual([done.results[0].document.id])
  })

  test('save_learnings creates drafts pending approval, listed by GET /api/memories?status=pending_approval', async () => {
    const workspace_id = await defaultWorkspace(user)
    const saved = structured(
      await call(client, 'save_learnings', {
        workspace_id,
        learnings: [
          { kind: 'preference', title: 'Prefers tabs', body: 'The user indents with tabs.', metadata: { topic: 'style', confidence: 0.9 } },
          { kind: 'decision', title: 'Postgres it is', body: 'The team chose Postgres over MySQL.', tags: ['db'] },
        ],
      }),
    )
    expect(saved.status).toBe('pending_approval')
    expect(saved.drafts.map((d: { title: string; status: string }) => [d.title, d.status])).toEqual([
      ['Prefers tabs', 'pending_approval'],
      ['Postgres it is', 'pending_approval'],
    ])
    const drafts = await s.t.json('GET', `/api/memories?status=pending_approval&workspace_id=${workspace_id}`, { key: user.key })
    expect(drafts.body.data.map((d: { id: string }) => d.id).sort()).toEqual(saved.drafts.map((d: { id: string }) => d.id).sort())
    // Drafts are not memories yet.
    expect((await s.t.json('GET', '/api/memories', { key: user.key })).body.data).toEqual([])
  })

  test('add_document with a memory kind saves a draft awaiting approval, never an active memory; only a person approves it', async () => {
    const u = await s.t.signUp()
    const c = await httpClient(s.url, u.key)
    try {
      const url = 'https://example.com/style-guide'
      const added = structured(
        await call(c, 'add_document', { kind: 'preference', title: 'Tabs', url, body: 'The user indents with tabs.' }),
      )
      expect(added).toMatchObject({ kind: 'preference', status: 'pending_approval', deduplicated: false })
      expect(added.notice).toContain('pending approval')
      expect((await s.t.json('GET', '/api/memories', { key: u.key })).body.data).toEqual([])
      // The tool's description says so, for the model that reads it.
      const { tools } = await c.listTools()
      expect(tools.find((tool) => tool.name === 'add_document')!.description).toContain('pending approval')

      // The key behind the MCP client cannot approve it; the person signed in can.
      expect((await s.t.json('POST', `/api/documents/${added.id}/approve`, { key: u.key })).status).toBe(403)
      expect((await s.t.json('POST', `/api/documents/${added.id}/approve`, { cookie: u.cookie })).body.status).toBe('active')

      // A new text from the same URL is a draft that supersedes the memory; the approved text stays in force.
      const changed = structured(await call(c, 'add_document', { url, body: 'The user indents with two spaces.' }))
      expect(changed).toMatchObject({ kind: 'preference', status: 'pending_approval', deduplicated: false })
      expect((await s.t.json('GET', `/api/documents/${changed.id}`, { key: u.key })).body.metadata).toEqual({ supersedes: added.id })
      expect((await s.t.json('GET', `/api/documents/${added.id}`, { key: u.key })).body).toMatchObject({
        status: 'active',
        body: 'The user indents with tabs.',
      })
    } finally {
      await c.close()
    }
  })

  test('list_workspaces and get_workspace_context read what the REST API has', async () => {
    const u = await s.t.signUp()
    const c = await httpClient(s.url, u.key)
    try {
      const created = await s.t.json('POST', '/api/workspaces', { key: u.key, body: { name: 'Research', description: 'Papers' } })
      const listed = structured(await call(c, 'list_workspaces'))
      const rest = await s.t.json('GET', '/api/workspaces', { key: u.key })
      expect(listed.workspaces.map((w: { id: string }) => w.id)).toEqual(rest.body.data.map((w: { id: string }) => w.id))
      expect(listed.workspaces).toHaveLength(2)
      expect(listed.workspaces.find((w: { id: string }) => w.id === created.body.id)).toEqual({
        id: created.body.id,
        name: 'Research',
        description: 'Papers',
        document_count: 0,
      })
      expect(listed.next_cursor).toBeNull()

      await call(c, 'add_document', {
        workspace_id: created.body.id,
        title: 'Reading list',
        body: 'Attention is all you need.',
        pinned: true,
      })
      const pack = structured(await call(c, 'get_workspace_context', { workspace_id: created.body.id, max_tokens: 2000 }))
      expect(pack.workspace).toMatchObject({ id: created.body.id, name: 'Research' })
      expect(pack.pinned.map((p: { title: string }) => p.title)).toEqual(['Reading list'])
      expect(pack.stats).toMatchObject({ documents: 1 })
    } finally {
      await c.close()
    }
  })

  test("the API's errors come back as isError results with its message and status", async () => {
    const missing = crypto.randomUUID()
    expect(errorText(await call(client, 'get_document', { id: missing }))).toBe(
      `document ${missing} not found (HTTP 404 from GET /api/documents/${missing})`,
    )
    expect(errorText(await call(client, 'get_workspace_context', { workspace_id: missing }))).toContain('HTTP 404')
    // Another user's document is as missing as one that never existed.
    const other = await s.t.signUp()
    const theirs = await s.t.json('POST', '/api/documents', { key: other.key, body: { body: 'Private notes of someone else.' } })
    expect(errorText(await call(client, 'get_document', { id: theirs.body.id }))).toContain('HTTP 404')
    // Arguments the tool's schema refuses never reach the API.
    expect(errorText(await call(client, 'search', { query: 'x', limit: 1000 }))).toContain('limit')
    expect(
      errorText(await call(client, 'save_learnings', { workspace_id: missing, learnings: [{ kind: 'gossip', title: 't', body: 'b' }] })),
    ).toContain('kind')
  })

  test("tools meet the plan's rate limits like REST: past the search rate, search is isError 429", async () => {
    const u = await s.t.signUp()
    const c = await httpClient(s.url, u.key)
    try {
      for (let i = 0; i < 5; i++) expect((await call(c, 'search', { query: `word${i}` })).isError).toBeFalsy()
      expect(errorText(await call(c, 'search', { query: 'one more' }))).toContain('HTTP 429')
    } finally {
      await c.close()
    }
  })
})

describe('ask over HTTP', () => {
  test('ask reads the whole answer stream: the answer, its sources and the saved conversation; a follow-up continues it', async () => {
    const u = await s.t.signUp()
    const c = await httpClient(s.url, u.key)
    try {
      const doc = structured(
        await call(c, 'add_document', {
          title: 'Backup policy',
          body: 'Backups of the billing database run nightly at 02:00 UTC and are kept for 35 days.',
        }),
      )
      const first = structured(await call(c, 'ask', { question: 'How long are billing database backups kept?' }))
      expect(first.answer.trim().length).toBeGreaterThan(0)
      expect(first.sources.map((src: { document_id: string }) => src.document_id)).toContain(doc.id)
      expect(first.sources[0]).toEqual({
        index: 1,
        document_id: expect.any(String),
        title: expect.any(String),
        url: null,
        excerpt: expect.any(String),
      })
      const conversation = await s.t.json('GET', `/api/conversations/${first.conversation_id}`, { key: u.key })
      expect(conversation.status).toBe(200)
      expect(conversation.body.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant'])
      expect(conversation.body.messages[1].content).toBe(first.answer.trim())

      const followUp = structured(await call(c, 'ask', { question: 'When do they run?', conversation_id: first.conversation_id }))
      expect(followUp.conversation_id).toBe(first.conversation_id)
      expect((await s.t.json('GET', `/api/conversations/${first.conversation_id}`, { key: u.key })).body.messages).toHaveLength(4)

      const missing = crypto.randomUUID()
      expect(errorText(await call(c, 'ask', { question: 'Anything?', conversation_id: missing }))).toContain('HTTP 404 from POST /api/ask')
    } finally {
      await c.close()
    }
  })

  test('an answer that fails mid-stream is an isError result with the error, never a truncated answer', async () => {
    const u = await s.t.signUp()
    const c = await httpClient(s.url, u.key)
    const chat = s.t.deps.chat
    s.t.deps.chat = { ...chat, model: failingModel() }
    try {
      await call(c, 'add_document', { title: 'Fleet', body: 'The fleet has twelve vans.' })
      expect(errorText(await call(c, 'ask', { question: 'How many vans?' }))).toBe(
        'ask failed: the answer could not be completed: model went away',
      )
    } finally {
      s.t.deps.chat = chat
      await c.close()
    }
  })
})

/** Writes a few words, then fails. */
function failingModel() {
  const parts: LanguageModelV4StreamPart[] = [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't' },
    { type: 'text-delta', id: 't', delta: 'The fleet has' },
    { type: 'error', error: new Error('model went away') },
  ]
  return new MockLanguageModelV4({
    doStream: async () => ({
      stream: new ReadableStream({
        start(controller) {
          for (const part of parts) controller.enqueue(part)
          controller.close()
        },
      }),
    }),
  })
}

describe('/mcp auth', () => {
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
  }
  const post = (headers: Record<string, string>) =>
    fetch(`${s.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(initialize),
    })

  test('no key, a malformed header, an unknown key and a session cookie alone are 401 with a JSON-RPC error saying why', async () => {
    const cases: [Record<string, string>, string][] = [
      [{}, 'missing credentials: send "Authorization: Bearer <API key or OAuth access token>"'],
      [{ authorization: 'Basic abc' }, 'Authorization header must be "Bearer <API key or OAuth access token>"'],
      [{ authorization: 'Bearer svc_nope' }, 'invalid or revoked API key'],
      [{ cookie: user.cookie }, 'missing credentials: send "Authorization: Bearer <API key or OAuth access token>"'],
    ]
    for (const [headers, message] of cases) {
      const res = await post(headers)
      expect({ headers, status: res.status }).toEqual({ headers, status: 401 })
      expect(res.headers.get('content-type')).toContain('application/json')
      expect(res.headers.get('www-authenticate')).toStartWith('Bearer resource_metadata=')
      // What the Python MCP SDK shows of a refused request: a JSON-RPC error's message, for the request's id.
      expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32000, message, data: { code: 'unauthenticated' } } })
    }
    await expect(httpClient(s.url, 'svc_invalid')).rejects.toThrow('invalid or revoked API key')
  })

  test('a request without an id (a notification) is refused with id null', async () => {
    const res = await fetch(`${s.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: 'Bearer svc_nope' },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    })
    expect(res.status).toBe(401)
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { message: 'invalid or revoked API key' } })
  })

  test('a revoked key is refused at once', async () => {
    const u = await s.t.signUp()
    const c = await httpClient(s.url, u.key)
    const keys = await s.t.json('GET', '/api/keys', { cookie: u.cookie })
    await s.t.request('DELETE', `/api/keys/${keys.body.data[0].id}`, { cookie: u.cookie })
    await expect(c.listTools()).rejects.toThrow('invalid or revoked API key')
    await c.close()
  })

  test('a body over the limit (32 MiB here, for add_documents) is 413 { error }, as on every route', async () => {
    const huge = { ...initialize, params: { ...initialize.params, padding: 'x'.repeat(33 * 1024 * 1024) } }
    const res = await fetch(`${s.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(huge),
    })
    expect(res.status).toBe(413)
    expect(await res.json()).toEqual({ error: expect.any(String), code: 'payload_too_large' })
  })

  test('GET and DELETE answer 405: the endpoint is stateless', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${s.url}/mcp`, { method, headers: { authorization: `Bearer ${user.key}`, accept: 'text/event-stream' } })
      expect(res.status).toBe(405)
      expect(res.headers.get('allow')).toBe('POST')
      expect(await res.json()).toEqual({ error: expect.any(String), code: 'method_not_allowed' })
    }
  })
})

describe('OpenAPI', () => {
  // The whole document's checks are test/e2e/openapi.e2e.test.ts's; these are what /mcp must declare.
  test('POST /mcp is documented with a tag, a summary, a JSON body, bearer security and 401; GET and DELETE are not', async () => {
    const doc = (await (await fetch(`${s.url}/openapi/json`)).json()) as any
    const op = doc.paths['/mcp'].post
    expect(op).toMatchObject({ tags: ['mcp'], security: [{ bearer: [] }, { mcpOAuth: ['mcp'] }] })
    expect(op.summary).toBeString()
    expect(op.requestBody.content['application/json'].schema).toBeDefined()
    expect(Object.keys(op.responses)).toContain('401')
    // 405-only methods are not operations a client should generate.
    expect(Object.keys(doc.paths['/mcp'])).toEqual(['post'])
  })
})
