// startMcpServer(): the service (which serves /mcp) listening on a loopback port, and MCP clients of it over
// Streamable HTTP (a bearer key) or over stdio (`bun src/mcp/main.ts` as a child process).
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { BASE, createTestApp, type TestApp } from '../harness'

export interface McpTestServer {
  /** `http://127.0.0.1:<port>`, where the app listens (its BASE_URL stays the harness's, so t.signUp works,
   * unless `listeningBase`). */
  url: string
  t: TestApp
  stop(): Promise<void>
}

/**
 * `listeningBase`: BASE_URL is the listening URL, as OAuth needs (its metadata names the issuer and the /mcp
 * resource, which a client checks against the URL it connected to); the harness's origin stays allowed, so
 * t.signUp still works through app.handle.
 */
export async function startMcpServer(env: Record<string, string> = {}, { listeningBase = false } = {}): Promise<McpTestServer> {
  let t: TestApp | undefined
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (r: Request) => t!.app.fetch(r) })
  const url = `http://127.0.0.1:${server.port}`
  t = await createTestApp({ env: listeningBase ? { BASE_URL: url, ALLOWED_ORIGINS: BASE, ...env } : env })
  return {
    url,
    t: t!,
    async stop() {
      await server.stop(true)
      await t!.close()
    },
  }
}

const ROOT = new URL('../..', import.meta.url).pathname

export async function httpClient(url: string, key: string): Promise<Client> {
  const client = new Client({ name: 'mcp-test', version: '1.0.0' })
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', url), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
  )
  return client
}

/**
 * `bun <script> <args>` (the stdio entry by default) under an SDK client. `stderr()` is what the server logged;
 * `protocolErrors()` what the client could not read on stdout — a stray line there lands in it, not in a throw.
 */
export async function stdioClient(args: string[], env: Record<string, string> = {}, script = 'src/mcp/main.ts') {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [script, ...args],
    cwd: ROOT,
    // Only what is given: no SERVICE_TOKEN or SERVICE_URL leaks in from the shell running the tests.
    env: { PATH: process.env.PATH ?? '', ...env },
    stderr: 'pipe',
  })
  let stderr = ''
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const client = new Client({ name: 'mcp-test', version: '1.0.0' })
  const errors: string[] = []
  client.onerror = (error) => errors.push(String(error))
  await client.connect(transport)
  return { client, stderr: () => stderr, protocolErrors: () => errors }
}

/** A tool call's result, typed as a plain tools/call result (the SDK's return type also covers tasks). */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult
}

/** The text of an isError result. */
export const errorText = (result: CallToolResult) => {
  if (!result.isError) throw new Error(`expected an error, got ${JSON.stringify(result)}`)
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('')
}

/** The structured content of a successful result. */
export function structured<T = any>(result: CallToolResult): T {
  if (result.isError) throw new Error(`tool failed: ${JSON.stringify(result.content)}`)
  return result.structuredContent as T
}
