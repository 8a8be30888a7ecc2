// The MCP server over stdio: `bun src/mcp/main.ts` spawned under the SDK's StdioClientTransport, calling a real
// listening service with --token/--url or SERVICE_TOKEN/SERVICE_URL, and starting without any token.
// Every stdout line must be JSON-RPC: the client reports any other line as a protocol error, and none may occur.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { MCP_TOOLS, NO_TOKEN_MESSAGE } from '../../src/mcp/mcp.server'
import type { TestUser } from '../harness'
import { call, errorText, startMcpServer, stdioClient, structured, type McpTestServer } from './server'

let s: McpTestServer
let user: TestUser

beforeAll(async () => {
  s = await startMcpServer()
  user = await s.t.signUp()
})
afterAll(() => s.stop())

describe('stdio', () => {
  test('with --url and --token: lists the tools, add_document stores through the service and search finds it', async () => {
    const { client, stderr, protocolErrors } = await stdioClient(['--url', s.url, '--token', user.key])
    try {
      const { tools } = await client.listTools()
      expect(tools.map((t) => t.name).sort()).toEqual([...MCP_TOOLS].sort())

      const added = structured(await call(client, 'add_document', { title: 'Quokka facts', body: 'Quokkas live on Rottnest Island.' }))
      expect((await s.t.json('GET', `/api/documents/${added.id}`, { key: user.key })).body).toMatchObject({
        source: 'mcp',
        title: 'Quokka facts',
      })
      const found = structured(await call(client, 'search', { query: 'quokkas rottnest' }))
      expect(found.results.map((r: { id: string }) => r.id)).toEqual([added.id])

      const missing = crypto.randomUUID()
      expect(errorText(await call(client, 'get_document', { id: missing }))).toContain(`document ${missing} not found (HTTP 404`)
      expect(stderr()).toContain('mcp server ready on stdio')
      expect(protocolErrors()).toEqual([])
    } finally {
      await client.close()
    }
  })

  test('add_document with a memory kind answers that it is a draft awaiting approval, and no active memory exists', async () => {
    const u = await s.t.signUp()
    const { client, protocolErrors } = await stdioClient(['--url', s.url, '--token', u.key])
    try {
      const added = structured(
        await call(client, 'add_document', { kind: 'lesson', title: 'Small PRs', body: 'Small pull requests merge faster.' }),
      )
      expect(added).toMatchObject({ kind: 'lesson', status: 'pending_approval' })
      expect(added.notice).toContain('pending approval')
      expect((await s.t.json('GET', '/api/memories', { key: u.key })).body.data).toEqual([])
      expect(
        (await s.t.json('GET', '/api/memories?status=pending_approval', { key: u.key })).body.data.map((d: { id: string }) => d.id),
      ).toEqual([added.id])
      expect(protocolErrors()).toEqual([])
    } finally {
      await client.close()
    }
  })

  test('SERVICE_TOKEN and SERVICE_URL work as the flags do; a wrong key is a tool error, not a crash', async () => {
    const { client, protocolErrors } = await stdioClient([], { SERVICE_URL: s.url, SERVICE_TOKEN: 'svc_wrong' })
    try {
      expect(errorText(await call(client, 'list_workspaces'))).toBe('invalid or revoked API key (HTTP 401 from GET /api/workspaces)')
      expect(protocolErrors()).toEqual([])
    } finally {
      await client.close()
    }
  })

  test('an unreachable service is a tool error naming the URL', async () => {
    const { client } = await stdioClient(['--url', 'http://127.0.0.1:9', '--token', user.key])
    try {
      expect(errorText(await call(client, 'search', { query: 'anything' }))).toContain('cannot reach the service at http://127.0.0.1:9')
    } finally {
      await client.close()
    }
  })

  test('without a token it starts, logs that no API token is present to stderr, and every tool says so', async () => {
    const { client, stderr, protocolErrors } = await stdioClient(['--url', s.url])
    try {
      expect(client.getInstructions()).toContain(NO_TOKEN_MESSAGE)
      const { tools } = await client.listTools()
      expect(tools).toHaveLength(MCP_TOOLS.length)
      const id = crypto.randomUUID()
      const args: Record<string, Record<string, unknown>> = {
        search: { query: 'x' },
        get_document: { id },
        add_document: { body: 'x' },
        add_documents: { documents: [{ body: 'x' }] },
        upload_file: { filename: 'x.md', content_base64: 'eA==' },
        add_messages: { messages: [{ role: 'user', content: 'x' }] },
        read_thread: { thread_id: id },
        list_threads: {},
        save_learnings: { workspace_id: id, learnings: [{ kind: 'fact', title: 't', body: 'b' }] },
        get_workspace_context: { workspace_id: id },
        list_workspaces: {},
        ask: { question: 'why?' },
      }
      for (const name of MCP_TOOLS) {
        const text = errorText(await call(client, name, args[name]))
        expect({ name, text }).toEqual({ name, text: NO_TOKEN_MESSAGE })
        expect(text).toContain('SERVICE_TOKEN')
      }
      // The log is JSON lines on stderr.
      const lines = stderr().trim().split('\n')
      expect(lines.some((l) => JSON.parse(l).message.includes('no API token is present'))).toBe(true)
      expect(protocolErrors()).toEqual([])
    } finally {
      await client.close()
    }
  })
})
