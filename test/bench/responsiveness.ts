// bench:ingest's responsiveness part: keyword search latency and ingest rate through the API while the
// in-process worker drains an embedding backlog, against the same with no worker running (idle); and semantic
// search, whose query embedding goes before the backlog's passes in the inference process.
import { sql } from 'drizzle-orm'
import { queryRows } from '../../db/client'
import { embedQuery } from '../../src/embedding/embeddings'
import type { Deps } from '../../src/deps'
import { enqueueJob } from '../../src/queue/job-kinds'
import { startWorker } from '../../src/jobs/worker'
import type { timeStatements } from './ingest-statements'
import type { CorpusDoc } from './scifact'

interface Api {
  base: string
  headers: Record<string, string>
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!

async function searchLatencies(api: Api, queries: string[], mode = 'keyword'): Promise<number[]> {
  const took: number[] = []
  for (const q of queries) {
    const started = performance.now()
    const res = await fetch(`${api.base}/api/search?q=${encodeURIComponent(q)}&mode=${mode}&limit=10`, { headers: api.headers })
    if (res.status !== 200) throw new Error(`search: ${res.status} ${await res.text()}`)
    await res.arrayBuffer()
    took.push(performance.now() - started)
  }
  return took
}

/** The query embedding alone, as a semantic search makes it (through the inference process, query priority). */
async function embeddingLatencies(deps: Deps, queries: string[]): Promise<number[]> {
  const took: number[] = []
  for (const q of queries) {
    const started = performance.now()
    await embedQuery(deps.embedder!, q)
    took.push(performance.now() - started)
  }
  return took
}

async function ingestRate(api: Api, docs: CorpusDoc[]): Promise<number> {
  const started = performance.now()
  for (const doc of docs) {
    const res = await fetch(`${api.base}/api/documents`, {
      method: 'POST',
      headers: api.headers,
      body: JSON.stringify({ title: doc.title, body: `${doc.text} (copy ${crypto.randomUUID()})` }),
    })
    if (res.status !== 201) throw new Error(`ingest: ${res.status} ${await res.text()}`)
  }
  return docs.length / ((performance.now() - started) / 1000)
}

/** Every document stale again, with an embedding job each: the backlog the worker drains while we measure. */
async function makeBacklog(deps: Deps): Promise<number> {
  const docs = await queryRows<{ id: string; user_id: string }>(deps.db, sql`select id, user_id from documents`)
  await deps.db.transaction(async (tx) => {
    await tx.execute(sql`update chunks set embedding = null, embedding_model = null`)
    await tx.execute(sql`update documents set index_status = 'pending'`)
    for (const doc of docs) await enqueueJob(tx, deps, 'embed-document', { document_id: doc.id }, doc.user_id)
  })
  return docs.length
}

const pending = async (deps: Deps) =>
  Number((await queryRows<{ n: number }>(deps.db, sql`select count(*)::int as n from documents where index_status = 'pending'`))[0]?.n ?? 0)

const EMBEDDING_KINDS = ['embed-document', 'reembed-document']

export async function measureResponsiveness(
  deps: Deps,
  api: Api,
  queries: string[],
  extra: CorpusDoc[],
  statements?: ReturnType<typeof timeStatements> | null,
) {
  const third = Math.floor(extra.length / 3)
  const semanticQueries = queries.slice(0, 50)
  // Semantic search idle over the documents embedded so far (after makeBacklog none would be: an empty ranking).
  const idleSemantic = await searchLatencies(api, semanticQueries, 'semantic')
  const idleEmbedding = await embeddingLatencies(deps, semanticQueries)
  const backlog = await makeBacklog(deps)
  const idleSearch = await searchLatencies(api, queries)
  const idleIngest = await ingestRate(api, extra.slice(0, third))
  const ms = (xs: number[]) => `p50 ${pct(xs, 0.5).toFixed(1)} ms, p99 ${pct(xs, 0.99).toFixed(1)} ms`
  console.log(
    `  responsiveness (${queries.length} keyword searches, ${semanticQueries.length} semantic searches, then ${third} documents ingested, one at a time):`,
  )
  console.log(
    `    idle (no worker running): keyword search ${ms(idleSearch)}; semantic search ${ms(idleSemantic)} (its query embedding alone ${ms(idleEmbedding)}); ingest ${idleIngest.toFixed(1)} docs/s`,
  )
  // First the worker on embedding jobs alone (what this measures), then on every kind: each embedded document
  // also queues a suggest-links job, whose cost grows with the corpus (README "Link suggestions").
  for (const [i, kinds] of [EMBEDDING_KINDS, undefined].entries()) {
    statements?.reset()
    const worker = startWorker(deps, { pollMs: 50, kinds })
    await Bun.sleep(1_000) // the worker has claimed its first batch and is embedding
    const busyStarted = performance.now()
    const before = await pending(deps)
    const busySearch = await searchLatencies(api, queries)
    const copies = { loads: deps.vectorCache.loads, catchUps: deps.vectorCache.catchUps }
    const busySemantic = await searchLatencies(api, semanticQueries, 'semantic')
    const copied = `${deps.vectorCache.catchUps - copies.catchUps} catch-ups, ${deps.vectorCache.loads - copies.loads} full loads`
    const busyEmbedding = await embeddingLatencies(deps, semanticQueries)
    const busyIngest = await ingestRate(api, extra.slice((i + 1) * third, (i + 2) * third))
    const left = await pending(deps)
    const busySeconds = (performance.now() - busyStarted) / 1000
    await worker.stop()
    statements?.print(kinds ? 'backlog, embedding jobs only' : 'backlog, every job')
    const embedded = before + third - left
    console.log(
      `    draining a backlog of ${backlog}+ documents, worker running ${kinds ? 'embedding jobs only' : 'every job (embedding and suggest-links)'}:`,
    )
    console.log(
      `      keyword search ${ms(busySearch)}; semantic search ${ms(busySemantic)} (its query embedding alone ${ms(busyEmbedding)}; the vector copy: ${copied}); ingest ${busyIngest.toFixed(1)} docs/s`,
    )
    console.log(
      `      meanwhile ${embedded} documents embedded in ${busySeconds.toFixed(0)} s (${(embedded / busySeconds).toFixed(1)} docs/s; ${left} still pending)`,
    )
    console.log(
      `      keyword p99 busy / idle: ${(pct(busySearch, 0.99) / pct(idleSearch, 0.99)).toFixed(2)}× (p50 ${(pct(busySearch, 0.5) / pct(idleSearch, 0.5)).toFixed(2)}×); ingest busy / idle: ${((100 * busyIngest) / idleIngest).toFixed(0)} %`,
    )
  }
}
