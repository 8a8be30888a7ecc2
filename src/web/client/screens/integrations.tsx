// Ready-to-copy client configuration (MCP over stdio and HTTP, OpenAI clients), filled with this service's
// address and the key just created — or a placeholder to replace, since a key is never shown again.
import { CopyButton } from '../ui/copy'

const PLACEHOLDER = 'svc_…your key…'

export function integrationSnippets(origin: string, key: string) {
  return [
    {
      id: 'mcp-stdio',
      title: 'MCP client over stdio (Claude Desktop, Cursor…)',
      note: 'The client starts the MCP server from a checkout of this service; replace the path with yours.',
      text: JSON.stringify(
        {
          mcpServers: {
            memory: {
              command: 'bun',
              args: ['run', '--cwd', '/path/to/this/repo', 'mcp'],
              env: { SERVICE_URL: origin, SERVICE_TOKEN: key },
            },
          },
        },
        null,
        2,
      ),
    },
    {
      id: 'mcp-http',
      title: 'MCP client over HTTP (Streamable HTTP)',
      note: 'Nothing to install: the service itself is the MCP server.',
      text: JSON.stringify({ mcpServers: { memory: { url: `${origin}/mcp`, headers: { Authorization: `Bearer ${key}` } } } }, null, 2),
    },
    {
      id: 'openai-js',
      title: 'OpenAI client (JavaScript / TypeScript)',
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
      title: 'OpenAI client (Python)',
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

export function Integrations({ apiKey }: { apiKey?: string }) {
  const snippets = integrationSnippets(location.origin, apiKey ?? PLACEHOLDER)
  return (
    <section class="integrations" aria-labelledby="integrations-heading">
      <h2 id="integrations-heading">Integrations</h2>
      <p class="hint">
        {apiKey
          ? 'Filled in with your new key: copy them before leaving this page.'
          : `Create a key above and these fill in with it; until then replace ${PLACEHOLDER} with a key of yours.`}
      </p>
      {snippets.map((s) => (
        <section key={s.id} class="card snippet-card" aria-labelledby={`${s.id}-title`}>
          <div class="row snippet-head">
            <h3 id={`${s.id}-title`}>{s.title}</h3>
            <CopyButton text={s.text} name={`Copy the ${s.title} configuration`} />
          </div>
          {s.note && <p class="hint">{s.note}</p>}
          {/* biome-ignore lint/a11y/useAriaPropsSupportedByRole: a scrolling block reached by keyboard says which snippet it holds. */}
          <pre tabIndex={0} aria-labelledby={`${s.id}-title`}>
            <code>{s.text}</code>
          </pre>
        </section>
      ))}
    </section>
  )
}
