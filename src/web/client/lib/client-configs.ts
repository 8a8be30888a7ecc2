// The one place client configurations are written: for each client (Claude Desktop, Claude Code, Cursor, an OpenAI
// SDK) what to paste where, filled with this service's address and a key — HTTP MCP first (the service itself is the
// MCP server), then a stdio variant through `npx mcp-remote`, which needs Node.js but no checkout of this repository.

export const CLIENTS = [
  { id: 'claude-desktop', name: 'Claude Desktop' },
  { id: 'claude-code', name: 'Claude Code' },
  { id: 'cursor', name: 'Cursor' },
  { id: 'openai', name: 'OpenAI SDK' },
] as const
export type ClientId = (typeof CLIENTS)[number]['id']

export const KEY_PLACEHOLDER = 'svc_…your key…'

export interface Snippet {
  id: string
  title: string
  /** Where it goes or what to do with it; '' when the title says it all. */
  note: string
  text: string
}

const isLocal = (origin: string) => /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/.test(origin)

/** npx's arguments for mcp-remote, which refuses plain http to anything but localhost unless told (a LAN address). */
const remoteArgs = (origin: string, header: string) => [
  '-y',
  'mcp-remote',
  `${origin}/mcp`,
  ...(origin.startsWith('http:') && !isLocal(origin) ? ['--allow-http'] : []),
  '--header',
  header,
]

const json = (value: unknown) => JSON.stringify(value, null, 2)

/** In a JSON file the header comes from an environment variable mcp-remote expands: some clients (Claude Desktop on
 * Windows) split arguments at spaces, and "Bearer <key>" has one. */
function stdioJson(origin: string, key: string) {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: mcp-remote, not JavaScript, fills ${AUTH_HEADER} in.
  const args = remoteArgs(origin, 'Authorization:${AUTH_HEADER}')
  return json({ mcpServers: { memory: { command: 'npx', args, env: { AUTH_HEADER: `Bearer ${key}` } } } })
}

const httpJson = (origin: string, key: string) =>
  json({ mcpServers: { memory: { url: `${origin}/mcp`, headers: { Authorization: `Bearer ${key}` } } } })

/** What to paste for `client`, HTTP first; `key` is the new key, or KEY_PLACEHOLDER when it is not shown any more. */
export function clientSnippets(client: ClientId, origin: string, key: string): Snippet[] {
  switch (client) {
    case 'claude-desktop':
      return [
        {
          id: 'claude-desktop-http',
          title: 'Claude Desktop over HTTP: a custom connector',
          note: 'Settings → Connectors → Add custom connector, with this URL, then Connect: Claude signs in with your account (no key). Claude reaches custom connectors from its own servers, so this service must be on a public https address.',
          text: `${origin}/mcp`,
        },
        {
          id: 'claude-desktop-stdio',
          title: 'Claude Desktop over stdio: claude_desktop_config.json',
          note: 'Settings → Developer → Edit Config, paste this, restart Claude Desktop. Needs Node.js (npx); mcp-remote carries the key to the service over HTTP.',
          text: stdioJson(origin, key),
        },
      ]
    case 'claude-code':
      return [
        {
          id: 'claude-code-http',
          title: 'Claude Code over HTTP',
          note: 'Run this in a terminal, then /mcp in Claude Code lists memory.',
          text: `claude mcp add --transport http memory ${origin}/mcp --header "Authorization: Bearer ${key}"`,
        },
        {
          id: 'claude-code-stdio',
          title: 'Claude Code over stdio',
          note: 'The same through mcp-remote, for a Claude Code without HTTP transport. Needs Node.js (npx).',
          text: `claude mcp add memory -- npx ${remoteArgs(origin, '').slice(0, -1).join(' ')} "Authorization: Bearer ${key}"`,
        },
      ]
    case 'cursor':
      return [
        {
          id: 'cursor-http',
          title: 'Cursor over HTTP: ~/.cursor/mcp.json',
          note: 'Or .cursor/mcp.json in a project. The same shape works for any client that takes a URL and headers.',
          text: httpJson(origin, key),
        },
        {
          id: 'cursor-stdio',
          title: 'Cursor over stdio: ~/.cursor/mcp.json',
          note: 'Through mcp-remote, for clients that only start commands. Needs Node.js (npx).',
          text: stdioJson(origin, key),
        },
      ]
    case 'openai':
      return [
        {
          id: 'openai-js',
          title: 'OpenAI SDK (JavaScript / TypeScript)',
          note: 'Answers grounded in your memory, with citations; embeddings with service-embed.',
          text: `import OpenAI from 'openai'

const client = new OpenAI({ baseURL: '${origin}/v1', apiKey: '${key}' })
const answer = await client.chat.completions.create({
  model: 'service-rag',
  messages: [{ role: 'user', content: 'What did we decide about deploys?' }],
})`,
        },
        {
          id: 'openai-python',
          title: 'OpenAI SDK (Python)',
          note: '',
          text: `from openai import OpenAI

client = OpenAI(base_url="${origin}/v1", api_key="${key}")
answer = client.chat.completions.create(
    model="service-rag",
    messages=[{"role": "user", "content": "What did we decide about deploys?"}],
)`,
        },
      ]
  }
}
