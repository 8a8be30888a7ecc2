// The popular Python clients (pinned in test/clients/requirements.txt, installed once into a cached venv) against
// a listening server, each set up the way its own docs say with only the base URL and key changed: LangChain,
// LlamaIndex, the OpenAI Agents SDK, the openai package's Responses API and the MCP SDK. Every script runs behind
// a proxy that refuses and records whatever is not loopback, so each test also shows nothing else was contacted.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { hashEmbed } from '../../src/embedding/hash-embedding'
import { listen, QUESTION, userWithBackups, type Listening } from '../v1/v1.fixtures'
import { installPythonClients, proxied, type PythonClients, type RecordingProxy, runPython, startRecordingProxy } from './python'

let s: Listening
let py: PythonClients
let proxy: RecordingProxy

beforeAll(async () => {
  // Nothing to install when .ci/run (or an earlier run) did: `bun test/clients/python.ts --install`.
  py = installPythonClients()
  proxy = startRecordingProxy()
  s = await listen({ env: { PLAN_FREE_ASK_PER_MIN: '1000', PLAN_FREE_SEARCH_PER_MIN: '1000' } })
}, 600_000)
afterAll(async () => {
  proxy?.stop()
  await s?.stop()
})

/** `py/<script> args` as `key`, behind the recording proxy; its JSON result, after checking it ran cleanly and
 * reached nothing but the service. */
async function run(script: string, key: string, args: string[], env: Record<string, string> = {}) {
  const before = proxy.seen.length
  const out = await runPython(py, script, { BASE_URL: s.baseURL, MCP_URL: `${s.url}/mcp`, API_KEY: key, ...proxied(proxy), ...env }, args)
  expect({ code: out.code, stderr: out.code === 0 ? '' : out.stderr }).toEqual({ code: 0, stderr: '' })
  expect(proxy.seen.slice(before)).toEqual([])
  return out.result
}

const near = (actual: number[], expected: number[]) => actual.forEach((v, i) => expect(v).toBeCloseTo(expected[i]!, 6))

describe('LangChain (langchain-openai)', () => {
  test('OpenAIEmbeddings(base_url, api_key) with its defaults (text-embedding-ada-002, token arrays) embeds documents and a query', async () => {
    const user = await s.t.signUp()
    const out = await run('langchain_clients.py', user.key, ['embeddings'])
    expect(out.model).toBe('text-embedding-ada-002')
    expect(out.documents).toHaveLength(2)
    for (const vector of [...out.documents, out.query]) expect(vector).toHaveLength(64)
    expect(out.documents[0]).not.toEqual(out.documents[1])
  })

  test('ChatOpenAI(base_url, api_key) with its default model (gpt-3.5-turbo) answers from my documents', async () => {
    const { user } = await userWithBackups(s)
    const out = await run('langchain_clients.py', user.key, ['chat', QUESTION])
    expect(out.model).toBe('gpt-3.5-turbo')
    expect(out.content).toContain('35 days')
  })
})

describe('LlamaIndex', () => {
  test('OpenAILike(api_base, api_key, model="service-rag") as it comes (is_chat_model=False: /v1/completions) completes', async () => {
    const { user } = await userWithBackups(s)
    const out = await run('llamaindex_clients.py', user.key, ['complete', QUESTION])
    expect(out.text).toContain('35 days')
  })

  test('OpenAILike(..., is_chat_model=True) answers through /v1/chat/completions', async () => {
    const { user } = await userWithBackups(s)
    const out = await run('llamaindex_clients.py', user.key, ['chat', QUESTION])
    expect(out.text).toContain('35 days')
  })

  test('OpenAIEmbedding(model_name="service-embed", api_base, api_key) embeds texts and a query: the service-embed vectors', async () => {
    const user = await s.t.signUp()
    const out = await run('llamaindex_clients.py', user.key, ['embed'])
    near(out.texts[0], hashEmbed('Backups run nightly.', 64))
    near(out.texts[1], hashEmbed('They are kept for 35 days.', 64))
    near(out.query, hashEmbed('How long are backups kept?', 64))
  })
})

describe('OpenAI Agents SDK (openai-agents)', () => {
  test('as the README says (use_for_tracing=False, tracing disabled), model="service-rag": it answers and contacts nothing else', async () => {
    const { user } = await userWithBackups(s)
    const out = await run('agents_sdk.py', user.key, ['readme', 'service-rag', QUESTION])
    expect(out.output).toContain('35 days')
  })

  test("the same with the SDK's default model answers", async () => {
    const { user } = await userWithBackups(s)
    const out = await run('agents_sdk.py', user.key, ['readme', 'default', QUESTION])
    expect(out.output).toContain('35 days')
  })

  test('set_default_openai_client(client) alone sends the traces, with the key, to the vendor: why the README has both lines', async () => {
    const { user } = await userWithBackups(s)
    const before = proxy.seen.length
    const out = await runPython(py, 'agents_sdk.py', { BASE_URL: s.baseURL, API_KEY: user.key, ...proxied(proxy) }, [
      'tracing-default',
      'service-rag',
      QUESTION,
    ])
    // The run itself works; at exit the trace exporter tries api.openai.com (and the proxy refuses it).
    expect(out.result?.output).toContain('35 days')
    const tried = proxy.seen.slice(before)
    expect(tried.length).toBeGreaterThan(0)
    expect(tried.every((line) => line.startsWith('CONNECT api.openai.com:443 '))).toBe(true)
  })
})

describe('openai (Python): the Responses API', () => {
  test('responses.create, then responses.retrieve(id) and responses.input_items.list(id)', async () => {
    const { user } = await userWithBackups(s)
    const out = await run('openai_responses.py', user.key, [QUESTION])
    expect(out.output_text).toContain('35 days')
    expect(out.retrieved).toEqual({ id: out.id, output_text: out.output_text })
    expect(out.input_items).toHaveLength(1)
    expect(out.input_items[0]).toMatchObject({ type: 'message', role: 'user' })
    expect(JSON.stringify(out.input_items[0].content)).toContain(QUESTION)
  })
})

describe('MCP SDK (mcp), Streamable HTTP', () => {
  test("a bad key's error is the service's sentence, not a generic one", async () => {
    const out = await run('mcp_client.py', 'svc_not_a_key', ['backups'])
    expect(out.error).toBe('invalid or revoked API key')
  })

  test('a revoked key says so too', async () => {
    const user = await s.t.signUp()
    const keys = await s.t.json('GET', '/api/keys', { cookie: user.cookie })
    await s.t.request('DELETE', `/api/keys/${keys.body.data[0].id}`, { cookie: user.cookie })
    expect((await run('mcp_client.py', user.key, ['backups'])).error).toBe('invalid or revoked API key')
  })

  test('a good key lists the tools and calls search, which finds my document', async () => {
    const { user, doc } = await userWithBackups(s)
    const out = await run('mcp_client.py', user.key, ['billing backups'])
    expect(out.tools).toEqual(expect.arrayContaining(['search', 'get_document', 'add_document', 'ask']))
    expect(out.search.results.map((r: { id: string }) => r.id)).toContain(doc.id)
  })
})
