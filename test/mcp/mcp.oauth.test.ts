// MCP clients that connect by URL: the MCP SDK client's own OAuth support against a listening server — 401 with
// resource metadata, discovery, dynamic registration, PKCE, the consent of the signed-in person, tokens, the
// tools, refresh, and revocation from the key list. Bearer API keys keep working beside it.
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { TestUser } from '../harness'
import { MemoryOAuthProvider } from './oauth'
import { call, httpClient, startMcpServer, structured, type McpTestServer } from './server'
import { MCP_TOOLS } from '../../src/mcp/mcp.server'

let s: McpTestServer
let user: TestUser

beforeAll(async () => {
  s = await startMcpServer({}, { listeningBase: true })
  user = await s.t.signUp()
})
afterAll(async () => {
  await s.stop()
})

const transportFor = (provider: MemoryOAuthProvider) =>
  new StreamableHTTPClientTransport(new URL('/mcp', s.url), { authProvider: provider })

/** The host's first connection: the SDK runs discovery, registration and authorization, the person consents,
 * the host hands the code back (finishAuth), and a second connection works with the token. */
async function connectByUrl(provider: MemoryOAuthProvider): Promise<Client> {
  const first = transportFor(provider)
  await expect(new Client({ name: 'host', version: '1' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError)
  await first.finishAuth(provider.code)
  const client = new Client({ name: 'host', version: '1' })
  await client.connect(transportFor(provider))
  return client
}

describe('the SDK client connects by URL alone', () => {
  test('discovers, registers, gets consent and a token, then lists and calls tools as the person who consented', async () => {
    const provider = new MemoryOAuthProvider(s.url, user.cookie)
    const client = await connectByUrl(provider)
    try {
      // What the dance produced: a registered public client, a code delivered with the state, audience-bound tokens.
      // (Copies: bun's toMatchObject writes its matchers into the object it checks.)
      expect(structuredClone(provider.client)).toMatchObject({
        client_id: expect.stringMatching(/^mcpc_/),
        token_endpoint_auth_method: 'none',
      })
      expect(provider.lastRedirect!.searchParams.get('state')).toBe('state-0')
      expect(provider.lastRedirect!.searchParams.get('iss')).toBe(s.url)
      expect(structuredClone(provider.saved)).toMatchObject({
        token_type: 'Bearer',
        expires_in: 3600,
        scope: 'mcp',
        access_token: expect.stringMatching(/^mcpat_/),
        refresh_token: expect.stringMatching(/^mcprt_/),
      })

      expect((await client.listTools()).tools).toHaveLength(MCP_TOOLS.length)
      const added = structured(
        await call(client, 'add_document', { title: 'Heron notes', body: 'Herons nest in the alder grove by the weir.' }),
      )
      // The document is the consenting user's, written as an agent (source mcp), readable with their key.
      expect((await s.t.json('GET', `/api/documents/${added.id}`, { key: user.key })).body).toMatchObject({ id: added.id, source: 'mcp' })
      expect(structured(await call(client, 'search', { query: 'herons alder' })).results.map((r: { id: string }) => r.id)).toEqual([
        added.id,
      ])
    } finally {
      await client.close()
    }
  })

  test('the server advertises no change notifications it never sends', async () => {
    const client = await httpClient(s.url, user.key)
    try {
      const capabilities = client.getServerCapabilities()!
      expect(capabilities.tools).toBeDefined()
      expect(capabilities.tools!.listChanged).toBeFalsy()
      expect(capabilities.resources).toBeUndefined()
      expect(capabilities.prompts).toBeUndefined()
    } finally {
      await client.close()
    }
  })

  test('an expired access token is refreshed by the SDK on its own, and the refresh token rotates', async () => {
    const u = await s.t.signUp()
    const provider = new MemoryOAuthProvider(s.url, u.cookie)
    const client = await connectByUrl(provider)
    try {
      const before = provider.saved!
      s.t.clock.advance(3601_000)
      expect((await client.listTools()).tools).toHaveLength(MCP_TOOLS.length)
      expect(provider.authorizations).toBe(1)
      expect(provider.saved!.access_token).not.toBe(before.access_token)
      expect(provider.saved!.refresh_token).not.toBe(before.refresh_token)
      // The old access token stopped at its hour; the new one works.
      const old = await fetch(`${s.url}/mcp`, { method: 'POST', headers: mcpHeaders(before.access_token), body: INITIALIZE })
      expect(old.status).toBe(401)
      expect(old.headers.get('www-authenticate')).toContain('error="invalid_token"')
    } finally {
      await client.close()
    }
  })

  test('the grant is listed with the keys (kind oauth) and deleting it there makes the next call 401', async () => {
    const u = await s.t.signUp()
    const provider = new MemoryOAuthProvider(s.url, u.cookie, {
      client_name: 'Claude (test)',
      redirect_uris: ['http://localhost:33418/cb'],
      token_endpoint_auth_method: 'none',
    })
    const client = await connectByUrl(provider)
    try {
      const listed = await s.t.json('GET', '/api/keys', { cookie: u.cookie })
      expect(listed.body.data).toHaveLength(2)
      const [grant] = listed.body.data.filter((k: { kind: string }) => k.kind === 'oauth')
      expect(grant).toEqual({
        id: expect.any(String),
        kind: 'oauth',
        client_name: 'Claude (test)',
        label: 'Claude (test)',
        prefix: provider.client!.client_id.slice(0, 16),
        tier: 'free',
        created_at: expect.any(String),
        last_used_at: expect.any(String),
        scopes: ['read', 'write'],
        parent_id: null,
      })
      expect(listed.body.data.find((k: { kind: string }) => k.kind === 'api_key')).toMatchObject({ client_name: null, label: 'test' })

      expect((await s.t.request('DELETE', `/api/keys/${grant.id}`, { cookie: u.cookie })).status).toBe(204)
      const res = await fetch(`${s.url}/mcp`, { method: 'POST', headers: mcpHeaders(provider.saved!.access_token), body: INITIALIZE })
      expect(res.status).toBe(401)
      // The SDK's refresh fails too (the grant's refresh token went with it), so it asks the person again.
      provider.consents = false
      await expect(client.listTools()).rejects.toBeInstanceOf(UnauthorizedError)
      expect(provider.authorizations).toBe(2)
      expect((await s.t.json('GET', '/api/keys', { cookie: u.cookie })).body.data.map((k: { kind: string }) => k.kind)).toEqual(['api_key'])
    } finally {
      await client.close()
    }
  })

  test('an MCP token is refused on /api and /v1 (403), and bearer API keys keep working on /mcp', async () => {
    const u = await s.t.signUp()
    const provider = new MemoryOAuthProvider(s.url, u.cookie)
    ;(await connectByUrl(provider)).close()
    const bearer = { authorization: `Bearer ${provider.saved!.access_token}` }
    for (const path of ['/api/documents', '/api/keys', '/v1/models']) {
      const res = await fetch(s.url + path, { headers: bearer })
      expect({ path, status: res.status }).toEqual({ path, status: 403 })
      const body = await res.json()
      // /v1 in OpenAI's shape, the rest { error, code }.
      const { message, code } = path.startsWith('/v1/') ? body.error : { message: body.error, code: body.code }
      expect({ message, code }).toEqual({ message: expect.stringContaining('/mcp only'), code: 'forbidden' })
    }
    const byKey = await httpClient(s.url, u.key)
    expect((await byKey.listTools()).tools).toHaveLength(MCP_TOOLS.length)
    await byKey.close()
  })
})

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
})
const mcpHeaders = (token: string) => ({
  authorization: `Bearer ${token}`,
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
})
