// bench:search --mode semantic|hybrid: chunk vectors for the seeded corpus, and the latency and recall figures of
// semantic or hybrid search through HTTP with the in-memory vector copy (src/retrieval/vector-memory.ts) and
// without it (pgvector's exact scan in SQL, the path before), plus recall@10 of the copy against that exact ranking.
// Vectors come from the hash embedder at 384 dimensions (bge-small's width): latency depends on how many vectors
// of what width are compared, not on the model, and the hash embedder makes 100k documents' vectors in seconds
// where bge-small would take hours on these 2 cores.
import { sql } from 'drizzle-orm'
import { queryRows } from '../../db/client'
import { embedQuery } from '../../src/embedding/embeddings'
import { hashEmbed } from '../../src/embedding/hash-embedding'
import type { Deps } from '../../src/deps'
import { semanticSearchSql } from '../../src/retrieval/semantic'
import { suggestLinks } from '../../src/modules/documents/link-suggestions.service'
import { searchVectorIndex, vectorSource } from '../../src/retrieval/vector-cache'
import { codesBytes } from '../../src/retrieval/vector-codes'
import { IndexCache } from '../../src/retrieval/index-cache'
import { keywordSource } from '../../src/retrieval/keyword-cache'
import { chunkTextOf } from '../../src/retrieval/chunk-text'

export const BENCH_DIMENSIONS = 384
const PAGE = 2_000

/** Embeds the user's chunks without a vector (those the seed check re-indexed) with the hash embedder, PAGE chunks per
 * statement, and marks the documents indexed (as the embed job does). The bulk seed writes the others' with the chunks. */
export async function embedChunksInBulk(deps: Deps, userId: string): Promise<number> {
  const model = deps.embedder!.id
  let after = '00000000-0000-0000-0000-000000000000'
  let total = 0
  for (;;) {
    const rows = await queryRows<{ id: string; content: string }>(
      deps.db,
      sql`select c.id, ${chunkTextOf('c', 'd')} as content from chunks c join documents d on d.id = c.document_id
          where c.user_id = ${userId} and c.embedding_model is null and c.id > ${after}::uuid order by c.id limit ${PAGE}`,
    )
    if (rows.length === 0) break
    const values = JSON.stringify(rows.map((r) => ({ id: r.id, e: `[${hashEmbed(r.content, BENCH_DIMENSIONS).join(',')}]` })))
    await deps.db.execute(sql`update chunks c set embedding = v.e::vector, embedding_model = ${model}
      from jsonb_to_recordset(${values}::jsonb) as v(id uuid, e text) where c.id = v.id`)
    total += rows.length
    after = rows[rows.length - 1]!.id
  }
  await deps.db.execute(sql`update documents set index_status = 'indexed' where user_id = ${userId}`)
  return total
}

type Drive = (
  concurrency: number,
  total: number,
  once: (k: number) => Promise<unknown>,
) => Promise<{ stats: { p50: number; p95: number; p99: number; n: number }; seconds: number; total: number }>

interface Context {
  deps: Deps
  userId: string
  mode: 'semantic' | 'hybrid'
  queries: string[]
  total: number
  drive: Drive
  fmt: (run: Awaited<ReturnType<Drive>>) => string
  httpOnce: (k: number) => Promise<string[]>
  /** Queries the exact (SQL) pass and the SQL timings run: ~0.2 s a query at 10k documents, ~2 s at 100k. */
  exactQueries: number
}

/** Loads the copies, measures HTTP with and without them and the bare ranking, and recall@10 against the exact SQL ranking. */
export async function measureVectors({ deps, userId, mode, queries, total, drive, fmt, httpOnce, exactQueries }: Context) {
  const model = deps.embedder!.id
  let t0 = performance.now()
  const copy = await deps.vectorCache.load(deps.db, userId, model)
  if (!copy) throw new Error('the in-memory vector copy did not load')
  const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`
  console.log(
    `in-memory chunk vectors: ${copy.chunks} × ${copy.dim} float32 (${mb(4 * copy.chunks * copy.dim)}) + int8 codes (${mb(codesBytes(copy.segments[0]!.data.codes))}); ` +
      `the copy counts ${mb(copy.bytes)} against VECTOR_MEMORY_MAX_MB; loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  )

  const vectors = await Promise.all(queries.map(async (q) => (await embedQuery(deps.embedder!, q))!))
  const filter = sql`d.user_id = ${userId} and d.status = 'active'`
  // Recall@10 of what HTTP answers with the copies against the exact SQL ranking, every query once.
  let found = 0
  let expected = 0
  const withCopies: string[][] = []
  const exactN = Math.min(exactQueries, queries.length)
  for (let k = 0; k < exactN; k++) withCopies.push(await httpOnce(k))
  const [vectorCopies, keywordCopies] = [deps.vectorCache, deps.keywordCache]
  const off = () => {
    deps.vectorCache = new IndexCache(vectorSource, { minDocuments: Number.MAX_SAFE_INTEGER, maxBytes: 0, log: deps.log })
    if (mode === 'hybrid')
      deps.keywordCache = new IndexCache(keywordSource, { minDocuments: Number.MAX_SAFE_INTEGER, maxBytes: 0, log: deps.log })
  }
  const on = () => ((deps.vectorCache = vectorCopies), (deps.keywordCache = keywordCopies))
  off()
  t0 = performance.now()
  for (let k = 0; k < exactN; k++) {
    const exact = new Set(await httpOnce(k))
    expected += exact.size
    found += withCopies[k]!.filter((id) => exact.has(id)).length
  }
  const exactSeconds = (performance.now() - t0) / 1000
  on()

  await drive(1, queries.length, httpOnce) // warm-up
  const http1 = await drive(1, total, httpOnce)
  const http16 = await drive(16, total, httpOnce)
  const bare = await drive(1, total, async (k) => void searchVectorIndex(copy, vectors[k % vectors.length]!, {}, 10))
  const bareSql = await drive(
    1,
    Math.min(total, exactN),
    async (k) => void (await semanticSearchSql(deps.db, userId, model, vectors[k % vectors.length]!, filter, 10)),
  )
  off()
  const httpSql = await drive(1, Math.min(total, exactN), httpOnce)
  on()
  console.log(`HTTP  mode=${mode}  concurrency 1   ${fmt(http1)}`)
  console.log(`HTTP  mode=${mode}  concurrency 16  ${fmt(http16)}`)
  console.log(`HTTP  mode=${mode}  concurrency 1, index caches off (pgvector exact scan in SQL, the path before)  ${fmt(httpSql)}`)
  console.log(`bare in-memory semantic ranking (searchUserVectors, top 10)  ${fmt(bare)}`)
  console.log(`bare SQL semantic ranking (semanticSearch without copies, top 10)  ${fmt(bareSql)}`)
  await measureSuggestLinks(deps, userId, drive, fmt)
  console.log(
    `recall@10 of HTTP mode=${mode} with the copies against the exact SQL ranking: ${(found / Math.max(expected, 1)).toFixed(3)} (${found}/${expected}, ${exactN} queries; the exact pass took ${exactSeconds.toFixed(1)} s)`,
  )
}

/** suggest-links for one document (its neighbour query and its link writes) three ways: over the cached index (now),
 * keyword candidates re-scored in SQL (before, and now while a large user's copy reloads), every chunk of the
 * workspace in SQL (now for users below VECTOR_MEMORY_MIN_DOCUMENTS). */
async function measureSuggestLinks(deps: Deps, userId: string, drive: Drive, fmt: Context['fmt']) {
  const sample = await queryRows<{ id: string }>(
    deps.db,
    sql`select id from documents where user_id = ${userId} order by md5(id::text) limit 40`,
  )
  const once = (k: number) => suggestLinks(deps, sample[k % sample.length]!.id)
  const copies = deps.vectorCache
  const inMemory = await drive(1, sample.length, once)
  deps.vectorCache = new IndexCache(vectorSource, { minDocuments: 1, maxBytes: 0, log: deps.log }) // large, no copy: keyword candidates
  const candidates = await drive(1, sample.length, once)
  deps.vectorCache = new IndexCache(vectorSource, { minDocuments: Number.MAX_SAFE_INTEGER, maxBytes: 0, log: deps.log }) // small: the whole workspace in SQL
  const whole = await drive(1, Math.min(sample.length, 10), once)
  deps.vectorCache = copies
  console.log(`suggest-links per document, cached index (now)  ${fmt(inMemory)}`)
  console.log(`suggest-links per document, 50 keyword candidates re-scored in SQL (before; now while a copy reloads)  ${fmt(candidates)}`)
  console.log(`suggest-links per document, every chunk of the workspace in SQL (now below VECTOR_MEMORY_MIN_DOCUMENTS)  ${fmt(whole)}`)
}
