// `bun run mcp`: the MCP server over stdio, calling the service's REST API with the caller's key.
// stdout carries the protocol and nothing else; every log line goes to stderr.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { readFileSync } from 'node:fs'
import { ConfigError } from '../config'
import { createLogger } from '../log'
import { loadMcpConfig, MCP_USAGE } from './mcp.config'
import { createMcpServer } from './mcp.server'
import { encodeBody, ToolFailure, type ApiCaller } from './mcp.tool'

// From here on a stray console.log anywhere in the process would corrupt the protocol stream on stdout.
console.log = console.info = console.debug = console.error

let config: ReturnType<typeof loadMcpConfig>
try {
  // The one read of process.env in this program (docs/decisions.md#config-once): the MCP server is a client of the
  // service, and src/config.ts's loadConfig would validate the service's variables and create its data dir.
  config = loadMcpConfig(process.env, process.argv.slice(2))
} catch (error) {
  if (!(error instanceof ConfigError)) throw error
  console.error(`configuration error: ${error.message}`)
  process.exit(1)
}
if (config.help) {
  console.error(MCP_USAGE)
  process.exit(0)
}

const log = createLogger(config.logLevel)
const version = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version as string
const api = config.token ? fetchCaller(config.url, config.token) : null
const server = createMcpServer(api, { version, log })
await server.connect(new StdioServerTransport())
if (api) log.info('mcp server ready on stdio', { service: config.url })
else
  log.warn('mcp server ready on stdio, but no API token is present: set SERVICE_TOKEN or pass --token; every tool answers with this', {
    service: config.url,
  })

/** REST over HTTP with the key; an unreachable service is a tool error naming the URL, not a crash. */
function fetchCaller(url: string, token: string): ApiCaller {
  return async (method, path, body, signal) => {
    const encoded = encodeBody(body)
    try {
      return await fetch(url + path, {
        method,
        body: encoded.body,
        headers: { ...encoded.headers, authorization: `Bearer ${token}` },
        signal,
      })
    } catch (error) {
      if (signal?.aborted) throw error
      throw new ToolFailure(`cannot reach the service at ${url}: ${(error as Error).message}`)
    }
  }
}

async function shutdown() {
  await server.close().catch(() => {})
  process.exit(0)
}
// Closing stdin ends the process on its own (nothing else keeps it alive); signals end it at once.
process.on('SIGINT', () => void shutdown())
process.on('SIGTERM', () => void shutdown())
