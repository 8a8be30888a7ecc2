// Settings of the stdio MCP server: the API token and the service URL, from flags or the environment.
// Its own reader because the MCP server is a client of the service, not the service: it needs none of Config.
import { parseArgs } from 'node:util'
import { ConfigError } from '../config'

export interface McpConfig {
  /** null: no token given; the server starts and every tool says how to give one (docs/decisions.md#mcp-adapter). */
  token: string | null
  /** The service's base URL, without a trailing slash. */
  url: string
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent'
  /** --help: print the usage and exit. */
  help: boolean
}

export const MCP_USAGE = 'usage: bun run mcp [--token <API key>] [--url <service URL>]   (or SERVICE_TOKEN, SERVICE_URL)'

const LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const

/** Flags win over the environment, so one shell can point a second client elsewhere. */
export function loadMcpConfig(env: Record<string, string | undefined>, argv: string[]): McpConfig {
  let values: { token?: string; url?: string; help?: boolean }
  try {
    values = parseArgs({
      args: argv,
      options: { token: { type: 'string' }, url: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }).values
  } catch (error) {
    throw new ConfigError(`${(error as Error).message}\n${MCP_USAGE}`)
  }
  const token = (values.token ?? env.SERVICE_TOKEN)?.trim() || null
  const rawUrl = (values.url ?? env.SERVICE_URL)?.trim() || 'http://localhost:3000'
  const logLevel = (env.LOG_LEVEL?.trim() || 'info') as McpConfig['logLevel']
  if (!LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LEVELS.join(', ')}, got "${logLevel}"`)
  return { token, url: serviceUrl(rawUrl, values.url !== undefined ? '--url' : 'SERVICE_URL'), logLevel, help: values.help === true }
}

function serviceUrl(raw: string, name: string): string {
  let parsed: URL
  try {
    parsed = new URL(raw)
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`)
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`)
  return raw.replace(/\/+$/, '')
}
