// bun run bench:answers — how soon answers start, through the HTTP API of a listening server on the embedded
// default (PGlite in memory, SciFact abstracts ingested through POST /api/documents): time to the first event
// and to the first delta of POST /api/ask and POST /api/agent/chat on the built-in extractive answerer; then,
// with service-rag on a local fake OpenAI provider that waits D ms before its first chunk, the time the service
// adds to the provider's own first token (POST /api/ask and streaming /v1/chat/completions), against the fake's
// time to first token measured directly in the same run, request for request.
// BENCH_DOCS (200), BENCH_QUERIES (30), BENCH_DELAY_MS (50) and BENCH_EMBEDDINGS (hash | none) override.
import { createApp } from '../../src/app'
import { loadConfig } from '../../src/config'
import { createDeps } from '../../src/create-deps'
import type { Deps } from '../../src/deps'
import { drainJobs } from '../../src/jobs/worker'
import { reply, startFakeOpenAIChat } from '../fakes/openai-chat'
import { loadScifact } from './scifact'

const DOCS = Number(process.env.BENCH_DOCS ?? 200)
const QUERIES = Number(process.env.BENCH_QUERIES ?? 30)
const DELAY_MS = Number(process.env.BENCH_DELAY_MS ?? 50)
const EMBEDDINGS = process.env.BENCH_EMBEDDINGS ?? 'hash'
const WARMUP = 3

const scifact = loadScifact()
const corpus = scifact.corpus.slice(0, DOCS)
// Questions whose relevant abstracts are among the ingested ones come first, so most answers have sources.
const ingested = new Set(corpus.map((d) => d._id))
const questions = [...scifact.queries]
  .sort(
    (a, b) =>
      Number([...scifact.qrels.get(b._id)!].some((id) => ingested.has(id))) -
      Number([...scifact.qrels.get(a._id)!].some((id) => ingested.has(id))),
  )
  .slice(0, QUERIES)
  .map((q) => q.text)

interface Service {
  deps: Deps
  base: string
  key: string
  stop(): Promise<void>
}

/** A listening service with its own in-memory PGlite, one user and key, and the corpus ingested over HTTP. */
async function startService(env: Record<string, string>): Promise<Service> {
  const deps = await createDeps(
    loadConfig({
      DATA_DIR: 'memory://',
      LOG_LEVEL: 'warn',
      DEFAULT_PLAN: 'pro',
      PLAN_PRO_DOCUMENTS: '1000000',
      PLAN_PRO_ASK_PER_MIN: '1000000',
      WORKER_IN_PROCESS: 'false',
      EMBEDDING_PROVIDER: EMBEDDINGS,
      ...env,
    }),
  )
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: createApp(deps).fetch, maxRequestBodySize: 8 * 1024 * 1024 })
  const base = `http://127.0.0.1:${server.port}`
  const origin = deps.config.baseUrl
  const signUp = await fetch(`${base}/api/auth/sign-up`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin },
    body: JSON.stringify({ email: 'bench@example.com', password: 'benchmark password' }),
  })
  const cookie = signUp.headers.getSetCookie()[0]!.split(';')[0]!
  const { key } = (await (await fetch(`${base}/api/keys`, { method: 'POST', headers: { cookie, origin } })).json()) as { key: string }
  for (const doc of corpus) {
    const res = await fetch(`${base}/api/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: doc.title, body: doc.text }),
    })
    if (res.status !== 201) throw new Error(`ingest: ${res.status} ${await res.text()}`)
  }
  await drainJobs(deps)
  return {
    deps,
    base,
    key,
    async stop() {
      await server.stop(true)
      await deps.close()
    },
  }
}

interface Timing {
  /** ms from sending the request to the first SSE event. */
  firstEvent: number
  /** ms to the first event that carries answer text. */
  firstText: number
  total: number
}

/** POSTs and reads the SSE answer to its end, timing the first event and the first event with text. */
async function timeStream(url: string, key: string, body: object, hasText: (event: string) => boolean): Promise<Timing> {
  const started = performance.now()
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`)
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  let firstEvent: number | null = null
  let firstText: number | null = null
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    buffer += decoder.decode(value, { stream: true })
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const event = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      const at = performance.now() - started
      firstEvent ??= at
      if (firstText === null && hasText(event)) firstText = at
      if (event.startsWith('data: {"type":"error"') || event.startsWith('data: {"error"')) throw new Error(`${url}: ${event}`)
    }
  }
  if (firstEvent === null || firstText === null) throw new Error(`${url}: the stream ended without an answer`)
  return { firstEvent, firstText, total: performance.now() - started }
}

const isDelta = (event: string) => event.startsWith('data: {"type":"delta"')
/** A chat.completion.chunk whose delta has non-empty content (the role chunk has none). */
const hasContent = (event: string) => /"delta":\{[^}]*"content":"[^"]/.test(event)

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!
}
const ms = (v: number) => `${v.toFixed(1)} ms`
const summary = (values: number[]) => `p50 ${ms(percentile(values, 50))}, p95 ${ms(percentile(values, 95))}`

async function measure<T>(run: (question: string) => Promise<T>): Promise<T[]> {
  for (const q of questions.slice(0, WARMUP)) await run(q)
  const out: T[] = []
  for (const q of questions) out.push(await run(q))
  return out
}

console.log(
  `bench:answers — ${corpus.length} SciFact abstracts ingested through POST /api/documents; ${questions.length} SciFact questions, one at a time over HTTP (after ${WARMUP} warm-up requests); ` +
    `PGlite in memory; embeddings ${EMBEDDINGS}; ${navigator.hardwareConcurrency} cores; Bun ${Bun.version}`,
)

// 1. The built-in extractive answerer.
{
  const service = await startService({})
  console.log(
    `\nservice-rag = ${service.deps.chat.backedBy}, embedder ${service.deps.embedder?.id ?? 'none'}, database ${service.deps.dbKind}`,
  )
  const ask = await measure((question) => timeStream(`${service.base}/api/ask`, service.key, { question }, isDelta))
  console.log(
    `POST /api/ask         first event (delta)   ${summary(ask.map((t) => t.firstEvent))}; whole answer ${summary(ask.map((t) => t.total))}`,
  )
  const agent = await measure((message) => timeStream(`${service.base}/api/agent/chat`, service.key, { message }, isDelta))
  console.log(
    `POST /api/agent/chat  first event (tool)    ${summary(agent.map((t) => t.firstEvent))}; first delta ${summary(agent.map((t) => t.firstText))}; whole answer ${summary(agent.map((t) => t.total))}`,
  )
  // On PGlite the answer is produced without a turn of the event loop in between, so it may leave in one write.
  const together = [...ask, ...agent].filter((t) => t.total - t.firstEvent < 1).length
  console.log(`streams whose first event arrived within 1 ms of their end: ${together} of ${ask.length + agent.length}`)
  await service.stop()
}

// 2. An OpenAI-compatible provider that takes DELAY_MS to its first chunk: what does the service add?
{
  const answer = 'The sources say so [1], and more [2].'
  const fake = startFakeOpenAIChat({ apiKey: 'sk-bench', delayMs: DELAY_MS, fallback: reply.text(answer) })
  const service = await startService({ CHAT_MODEL: 'bench-chat', OPENAI_BASE_URL: fake.baseUrl, OPENAI_API_KEY: 'sk-bench' })
  console.log(
    `\nservice-rag = ${service.deps.chat.backedBy} (local fake, ${DELAY_MS} ms before its first chunk), embedder ${service.deps.embedder?.id ?? 'none'}, database ${service.deps.dbKind}`,
  )

  /** The fake's own time to first token, for the request body the service just sent it. */
  const direct = () => {
    const body = fake.chatRequests().at(-1)!.body
    return timeStream(`${fake.baseUrl}/chat/completions`, 'sk-bench', body, hasContent)
  }
  for (const [route, run] of [
    ['POST /api/ask', (question: string) => timeStream(`${service.base}/api/ask`, service.key, { question }, isDelta)],
    [
      'POST /v1/chat/completions (stream)',
      (question: string) =>
        timeStream(
          `${service.base}/v1/chat/completions`,
          service.key,
          { model: 'service-rag', stream: true, messages: [{ role: 'user', content: question }] },
          hasContent,
        ),
    ],
  ] as const) {
    const pairs = await measure(async (question) => {
      const viaService = await run(question)
      return { service: viaService.firstText, provider: (await direct()).firstText }
    })
    const svc = pairs.map((p) => p.service)
    const prov = pairs.map((p) => p.provider)
    const overhead = pairs.map((p) => p.service - p.provider)
    const ratio = pairs.map((p) => p.service / p.provider)
    console.log(
      `${route.padEnd(35)} first delta ${summary(svc)}; provider's own first token ${summary(prov)}; ` +
        `ratio service/provider p50 ${percentile(ratio, 50).toFixed(2)}×, p95 ${percentile(ratio, 95).toFixed(2)}×; overhead p50 ${ms(percentile(overhead, 50))}, p95 ${ms(percentile(overhead, 95))}`,
    )
  }
  await service.stop()
  await fake.stop()
}
