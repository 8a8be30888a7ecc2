// bun run bench:search — keyword search latency (p50/p95/p99) through the HTTP API of a listening server on the
// embedded default (PGlite), at 10k and 100k documents and at concurrency 1 and 16, against the bare SQL of the
// same queries. The corpus is SciFact replicated with variations, seeded without HTTP (~80 docs/s there): in bulk
// by default, checked against the API's own indexDocument on a sample, or with BENCH_SEED=api through indexDocument.
// BENCH_SIZES (10000,100000), BENCH_QUERIES (all 150), BENCH_ROUNDS, BENCH_BUDGET_S (90) and BENCH_SEED (bulk | api) override;
// BENCH_SQL=0 skips the measurements ranked in SQL (minutes at 100k). The service's own variables are honoured
// (KEYWORD_MEMORY_MAX_BYTES…) over the bench's defaults, except DATA_DIR and DATABASE_URL: it never seeds those.
// BENCH_DATA_DIR (PGlite on disk) keeps the seeded corpus for the next run of the same size (one size per folder).
// --mode semantic|hybrid (or BENCH_MODE) measures those modes instead, with and without the in-memory vector copy,
// and recall@10 against the exact ranking (search-vectors.ts: hash vectors at 384 dimensions).
// --after-ingest measures keyword search right after a bulk ingest through the API instead (search-after-ingest.ts).
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { getTableColumns, inArray, sql } from 'drizzle-orm'
import { chunks, documents } from '../../db/schema'
import { compactTermBlocks } from '../../src/retrieval/block-compaction'
import { queryRows } from '../../db/client'
import { createApp } from '../../src/app'
import { loadConfig } from '../../src/config'
import { createDeps } from '../../src/create-deps'
import type { Deps } from '../../src/deps'
import { authenticate } from '../../src/http/auth'
import { enforceRateLimit } from '../../src/http/rate-limit'
import { vacuumAnalyzeAll } from '../../src/jobs/table-upkeep'
import type { SessionUser } from '../../src/modules/auth/sessions.service'
import { contentHash, deriveExcerpt, deriveTitle, sizeOf } from '../../src/modules/documents/documents.model'
import { countApiCall, recordEvent } from '../../src/modules/usage/usage.service'
import { resolveWorkspaceId } from '../../src/modules/workspaces/workspaces.service'
import { indexDocument } from '../../src/retrieval/indexing'
import { chunkText } from '../../src/retrieval/chunking'
import { analyzeQuery, keywordSearchSql, snippets } from '../../src/retrieval/keyword'
import { IndexCache } from '../../src/retrieval/index-cache'
import { keywordSource } from '../../src/retrieval/keyword-cache'
import { searchKeywordIndex } from '../../src/retrieval/keyword-cache-rank'
import { compareRankings, megabytes } from './search-keyword'
import { TEXT_CONFIG, TITLE_WEIGHT } from '../../src/retrieval/keyword-index'
import { loadScifact, type CorpusDoc } from './scifact'
import { BENCH_DIMENSIONS, embedChunksInBulk, measureVectors } from './search-vectors'
import { hashEmbed } from '../../src/embedding/hash-embedding'

if (process.argv.includes('--after-ingest')) {
  await import('./search-after-ingest')
  process.exit(0)
}

const SIZES = (process.env.BENCH_SIZES ?? '10000,100000').split(',').map(Number)
/** Passes over the queries per measurement (the SQL-ranked ones stop at BENCH_BUDGET_S at 100k documents). */
const roundsFor = (_size: number) => Number(process.env.BENCH_ROUNDS ?? 2)
const BATCH = 1000
const SEED = process.env.BENCH_SEED ?? 'bulk'
const modeArg = process.argv.indexOf('--mode')
const MODE = (modeArg > 0 ? process.argv[modeArg + 1] : process.env.BENCH_MODE) ?? 'keyword'
if (!['keyword', 'semantic', 'hybrid'].includes(MODE)) throw new Error(`--mode must be keyword, semantic or hybrid, not ${MODE}`)
const LIMIT = 10
/** Wall-time cap per measurement (BENCH_BUDGET_S seconds). */
const BUDGET_MS = Number(process.env.BENCH_BUDGET_S ?? 90) * 1000
const scifact = loadScifact()
const corpus = scifact.corpus
const queries = scifact.queries.slice(0, Number(process.env.BENCH_QUERIES) || undefined).map((q) => q.text)

/** Document i: SciFact abstract i mod n; each copy after the first appends the opening sentence of another
 * abstract, so every body (hence content hash) differs and term statistics vary rather than just repeat. */
function variant(i: number): { title: string; body: string } {
  const doc = corpus[i % corpus.length]!
  const copy = Math.floor(i / corpus.length)
  let body = doc.text
  if (copy > 0) body += `\n\n${firstSentence(corpus[(i + copy * 7919) % corpus.length]!)}`
  return { title: doc.title.trim() || deriveTitle(body, null), body }
}
const firstSentence = (d: CorpusDoc) => /^.*?[.!?](\s|$)/.exec(d.text)?.[0]?.trim() ?? d.text.slice(0, 200)

/** The document rows ingestDocument writes for new documents sent with a key (dedup and limit checks aside: the bodies
 * are distinct and the plan is lifted). */
function documentRows(deps: Deps, userId: string, workspaceId: string, from: number, count: number) {
  const now = deps.clock.now()
  return Array.from({ length: count }, (_, j) => {
    const { title, body } = variant(from + j)
    const excerpt = deriveExcerpt(body)
    return {
      id: deps.ids.next(),
      user_id: userId,
      workspace_id: workspaceId,
      title,
      excerpt,
      body,
      tags: [] as string[],
      url: null,
      content_hash: contentHash(body),
      size_bytes: sizeOf({ title, excerpt, body }),
      index_status: 'pending',
      kind: 'document',
      status: 'active',
      source: 'api',
      source_ref: null,
      external_id: null,
      pinned: false,
      metadata: {},
      created_at: now,
      updated_at: now,
    }
  })
}

/** BENCH_SEED=api: the API's own indexDocument per document (BATCH per transaction) — ~8 ms a document here. */
async function seedThroughIndexDocument(deps: Deps, userId: string, workspaceId: string, n: number) {
  for (let start = 0; start < n; start += BATCH) {
    await deps.db.transaction(async (tx) => {
      const created = await tx
        .insert(documents)
        .values(documentRows(deps, userId, workspaceId, start, Math.min(BATCH, n - start)))
        .returning()
      for (const doc of created) await indexDocument(tx, deps, doc)
    })
  }
}

/**
 * Default: indexKeywords' statements set-based, BATCH documents per statement (chunks from chunkText, the same
 * terms grouped per document, one block a term for the batch as insert_indexed_documents writes, keyword_len
 * through the keyword_stats trigger) — about 5× faster. No embed jobs are queued (nothing runs them here).
 * verifySeed then re-indexes a sample through indexDocument and fails the bench if anything differs.
 */
async function seedInBulk(deps: Deps, userId: string, workspaceId: string, n: number) {
  for (let start = 0; start < n; start += BATCH) {
    await deps.db.transaction(async (tx) => {
      const created = (
        await tx
          .insert(documents)
          .values(documentRows(deps, userId, workspaceId, start, Math.min(BATCH, n - start)))
          .returning()
      ).sort((a, b) => (a.id < b.id ? -1 : 1))
      await tx.insert(chunks).values(
        created.flatMap((doc) =>
          chunkText(doc.body).map((c) => ({
            id: deps.ids.next(),
            user_id: doc.user_id,
            document_id: doc.id,
            workspace_id: doc.workspace_id,
            ordinal: c.ordinal,
            start_offset: c.start,
            content: c.content,
            tsv: sql`to_tsvector(${TEXT_CONFIG}::regconfig, ${doc.body.slice(c.start, c.end)})`,
            // Vectors written with the chunks: updating 175k chunk rows afterwards bloated the in-memory database out of RAM.
            ...(deps.embedder ? { embedding: hashEmbed(c.content, BENCH_DIMENSIONS), embedding_model: deps.embedder.id } : {}),
          })),
        ),
      )
      // The batch's numbers in the user's index, in id order.
      const [numbered] = await queryRows<{ last: number }>(
        tx,
        sql`update keyword_stats set last_no = last_no + ${created.length} where user_id = ${userId} returning last_no as last`,
      )
      const first = Number(numbered!.last) - created.length + 1
      const headings = JSON.stringify(created.map((d, k) => ({ id: d.id, no: first + k, heading: [d.title, ...d.tags].join(' \n ') })))
      const lengths = await queryRows<{ id: string; len: number; no: number }>(
        tx,
        sql`
        with batch as (select * from jsonb_to_recordset(${headings}::jsonb) as b(id uuid, no int, heading text)),
        p as (
          select id, no, lexeme, sum(tf)::real as tf from (
            select b.id, b.no, t.lexeme, coalesce(array_length(t.positions, 1), 1) as tf
              from batch b join ${chunks} c on c.document_id = b.id, unnest(c.tsv) t
            union all
            select b.id, b.no, t.lexeme, ${TITLE_WEIGHT} * coalesce(array_length(t.positions, 1), 1)
              from batch b, unnest(to_tsvector(${TEXT_CONFIG}::regconfig, b.heading)) t
          ) terms group by id, no, lexeme),
        len as (select id, no, sum(tf)::real as dl from p group by id, no),
        blocks as (insert into term_blocks (user_id, term, first_no, n, doc_nos, tfs, dls)
          select ${userId}::uuid, p.lexeme, min(p.no), count(*), array_agg(p.no order by p.no), array_agg(p.tf order by p.no), array_agg(len.dl order by p.no)
            from p join len using (id, no) group by p.lexeme),
        listed as (insert into document_terms (document_id, user_id, terms, tfs)
          select id, ${userId}::uuid, array_agg(lexeme order by lexeme), array_agg(tf order by lexeme) from p group by id)
        select id, dl as len, no from len`,
      )
      await tx.execute(
        sql`update ${documents} d set keyword_len = v.len, doc_no = v.no
            from jsonb_to_recordset(${JSON.stringify(lengths)}::jsonb) as v(id uuid, len real, no int) where d.id = v.id`,
      )
    })
    // As the maintenance tick does once COMPACT_AFTER_DOCUMENTS (= BATCH) documents came.
    await compactTermBlocks(deps.db, userId)
  }
}

/** Re-indexes a sample through the API's indexDocument and checks chunks, postings, keyword_len and keyword_stats
 * come out exactly as seeded. */
async function verifySeed(deps: Deps, userId: string, n: number) {
  const every = Math.max(1, Math.floor(n / 50))
  const picked = await queryRows<{ id: string }>(
    deps.db,
    sql`select id from (select id, row_number() over (order by id) - 1 as i from documents
    where user_id = ${userId}) t where i % ${every} = 0`,
  )
  const sample = await deps.db
    .select()
    .from(documents)
    .where(
      inArray(
        documents.id,
        picked.map((p) => p.id),
      ),
    )
  const ids = JSON.stringify(sample.map((d) => d.id))
  const snapshot = async () =>
    JSON.stringify(
      await queryRows(
        deps.db,
        sql`with ids as (select (jsonb_array_elements_text(${ids}::jsonb))::uuid as id) select
    (select json_agg(json_build_object('d', d.id, 'len', d.keyword_len) order by d.id) from documents d join ids using (id)) as docs,
    (select json_agg(json_build_object('d', c.document_id, 'o', c.ordinal, 's', c.start_offset, 'c', c.content, 't', c.tsv::text) order by c.document_id, c.ordinal)
       from chunks c join ids on ids.id = c.document_id) as chunks,
    (select json_agg(json_build_object('d', p.document_id, 't', p.term, 'tf', p.tf, 'dl', p.dl) order by p.document_id, p.term)
       from ids join document_terms t on t.document_id = ids.id cross join unnest(t.terms) as u(term)
       join postings p on p.user_id = t.user_id and p.term = u.term collate "C" and p.document_id = ids.id) as postings,
    (select json_build_object('n', documents, 'len', total_len) from keyword_stats where user_id = ${userId}) as stats,
    (select json_build_object('n', count(*), 'len', sum(keyword_len::float8)) from documents where user_id = ${userId}) as recount`,
      ),
    )
  const before = await snapshot()
  await deps.db.transaction(async (tx) => {
    for (const doc of sample) await indexDocument(tx, deps, doc)
  })
  const after = await snapshot()
  const [was, now] = [before, after].map(
    (j) => JSON.parse(j)[0] as Record<string, unknown> & { stats: { n: number; len: number }; recount: { n: number; len: number } },
  )
  const differs = Object.keys(was!).filter((k) => JSON.stringify(was![k]) !== JSON.stringify(now![k]))
  if (was!.stats.n !== was!.recount.n || was!.stats.len !== was!.recount.len)
    differs.push(`keyword_stats ${JSON.stringify(was!.stats)} vs recount ${JSON.stringify(was!.recount)}`)
  if (differs.length) throw new Error(`the bulk-seeded index differs from what indexDocument writes: ${differs.join(', ')}`)
  return sample.length
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!
function summary(samples: number[]) {
  const s = [...samples].sort((a, b) => a - b)
  return { p50: pct(s, 0.5), p95: pct(s, 0.95), p99: pct(s, 0.99), n: s.length }
}
type Run = Awaited<ReturnType<typeof drive>>
const fmt = ({ stats: s, total }: Pick<Run, 'stats' | 'total'>) =>
  `p50 ${s.p50.toFixed(1)}  p95 ${s.p95.toFixed(1)}  p99 ${s.p99.toFixed(1)} ms (n=${s.n}${s.n < total ? `, stopped by the ${BUDGET_MS / 1000} s budget` : ''})`
const rate = (r: Run) => `${(r.stats.n / r.seconds).toFixed(1)} req/s`

/** Runs `total` calls of `once(k)` from `concurrency` clients pulling from one counter, issuing none after BUDGET_MS
 * (so a pathological plan cannot make the bench run for hours); latencies and wall time. */
async function drive(concurrency: number, total: number, once: (k: number) => Promise<unknown>) {
  const [took, cpu]: [number[], number[]] = [[], []]
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total && performance.now() - started < BUDGET_MS) {
        const k = next++
        const [t0, c0] = [performance.now(), process.cpuUsage()]
        await once(k)
        took.push(performance.now() - t0)
        const c = process.cpuUsage(c0)
        cpu.push((c.user + c.system) / 1000)
      }
    }),
  )
  // CPU time of this process (server, client and embedded database alike) per call: what a call costs whatever
  // else the machine runs; meaningful at concurrency 1 only.
  return { stats: summary(took), cpu: summary(cpu), seconds: (performance.now() - started) / 1000, total }
}

/** The marker a finished seed leaves in BENCH_DATA_DIR: which size and mode the folder holds. */
const markerPath = () => `${process.env.BENCH_DATA_DIR}/bench-seed.json`
const seedKind = (size: number) => JSON.stringify({ size, vectors: MODE !== 'keyword', dimensions: BENCH_DIMENSIONS, seed: SEED })
function seededBefore(size: number): boolean {
  if (!process.env.BENCH_DATA_DIR || process.env.BENCH_RESEED === '1' || !existsSync(markerPath())) return false
  if (readFileSync(markerPath(), 'utf8') !== seedKind(size))
    throw new Error(
      `${process.env.BENCH_DATA_DIR} holds another seed (${readFileSync(markerPath(), 'utf8')}): use another folder or BENCH_RESEED=1`,
    )
  return true
}
const markSeeded = (size: number) => process.env.BENCH_DATA_DIR && writeFileSync(markerPath(), seedKind(size))

async function run(size: number) {
  if (process.env.BENCH_DATA_DIR && process.env.BENCH_RESEED === '1') rmSync(process.env.BENCH_DATA_DIR, { recursive: true, force: true })
  // The caller's environment wins over the bench's defaults (KEYWORD_MEMORY_MAX_BYTES and the like), except where
  // the data goes: never a developer's DATA_DIR or DATABASE_URL, only a fresh database or BENCH_DATA_DIR.
  const { DATA_DIR: _dataDir, DATABASE_URL: _databaseUrl, ...callers } = process.env
  const deps = await createDeps(
    loadConfig({
      LOG_LEVEL: 'warn',
      DEFAULT_PLAN: 'pro',
      WORKER_IN_PROCESS: 'false',
      ...(MODE === 'keyword'
        ? { EMBEDDING_PROVIDER: 'none' }
        : { EMBEDDING_PROVIDER: 'hash', EMBEDDING_DIMENSIONS: String(BENCH_DIMENSIONS) }),
      PLAN_PRO_DOCUMENTS: '10000000',
      PLAN_PRO_STORAGE_BYTES: String(1e12),
      PLAN_PRO_SEARCH_PER_MIN: '100000000',
      ...callers,
      // BENCH_DATA_DIR: PGlite on disk (a fresh folder), for sizes whose in-memory database would not fit in RAM.
      DATA_DIR: process.env.BENCH_DATA_DIR ?? 'memory://',
    }),
  )
  const server = Bun.serve({ port: 0, fetch: createApp(deps).fetch })
  const finish = async () => {
    await server.stop()
    await deps.close()
  }
  const base = `http://127.0.0.1:${server.port}`
  const origin = deps.config.baseUrl
  // BENCH_DATA_DIR keeps a seeded corpus: a later run of the same size and mode signs in and measures it again
  // (seeding 100k documents takes most of an hour here); BENCH_RESEED=1 starts from a fresh folder instead.
  const reuse = seededBefore(size)
  const account = JSON.stringify({ email: 'bench@example.com', password: 'benchmark password' })
  const signUp = await fetch(`${base}/api/auth/${reuse ? 'sign-in' : 'sign-up'}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin },
    body: account,
  })
  if (signUp.status >= 300) throw new Error(`bench account: ${signUp.status} ${await signUp.text()}`)
  const cookie = signUp.headers.getSetCookie()[0]!.split(';')[0]!
  const { user } = (await signUp.json()) as { user: SessionUser }
  const { key } = (await (
    await fetch(`${base}/api/keys`, { method: 'POST', headers: { cookie, origin, 'content-type': 'application/json' }, body: '{}' })
  ).json()) as { key: string }
  const auth = { authorization: `Bearer ${key}` }

  let t0 = performance.now()
  let verified = 0
  let verifySeconds = 0
  if (reuse) console.log(`\nreusing the ${size} documents seeded in ${process.env.BENCH_DATA_DIR} by an earlier run`)
  else {
    await (SEED === 'api' ? seedThroughIndexDocument : seedInBulk)(
      deps,
      user.id,
      await resolveWorkspaceId(deps.db, user.id, undefined),
      size,
    )
    const seedSeconds = (performance.now() - t0) / 1000
    console.log(
      `\nseeded ${size} documents in ${seedSeconds.toFixed(1)} s (${(size / seedSeconds).toFixed(0)} docs/s, ${SEED === 'api' ? 'indexDocument per document' : 'in bulk'}, ${BATCH} per transaction)`,
    )
    t0 = performance.now()
    verified = await verifySeed(deps, user.id, size)
    verifySeconds = (performance.now() - t0) / 1000
  }
  if (MODE !== 'keyword' && !reuse) {
    // After the check: re-indexing the sample through indexDocument replaces its chunks, vectors and all.
    t0 = performance.now()
    const embedded = await embedChunksInBulk(deps, user.id)
    console.log(`${embedded} chunks embedded by ${deps.embedder!.id} in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
  }
  t0 = performance.now()
  if (!reuse) await vacuumAnalyzeAll(deps) // what the server's maintenance tick does after a bulk ingest (PGlite has no autovacuum)
  const analyzeSeconds = (performance.now() - t0) / 1000
  if (!reuse) markSeeded(size)
  const [counts] = await queryRows<{ docs: number; chunks: number; postings: number; terms: number }>(
    deps.db,
    sql`select
    (select count(*) from documents where user_id = ${user.id})::int as docs, (select count(*) from chunks)::int as chunks,
    (select coalesce(sum(n), 0) from term_blocks)::int as postings, (select count(distinct term) from term_blocks)::int as terms`,
  )
  console.log(
    `${counts!.docs} documents (${counts!.chunks} chunks, ${counts!.postings} postings, ${counts!.terms} distinct terms), one user; ` +
      `${verified} sampled documents re-indexed through indexDocument identically (${verifySeconds.toFixed(1)} s); maintenance VACUUM ANALYZE ${analyzeSeconds.toFixed(1)} s`,
  )

  // The cached index of the keyword index: loaded in the background after the first search once a user has
  // KEYWORD_MEMORY_MIN_DOCUMENTS; loaded here up front so the measurements below see it.
  t0 = performance.now()
  const copy = await deps.keywordCache.load(deps.db, user.id)
  const budget = `budget KEYWORD_MEMORY_MAX_BYTES ${megabytes(deps.config.keywordCache.maxBytes)}`
  if (!copy) {
    const notice = deps.keywordCache.tooLargeNotice(user.id)
    if (!notice) throw new Error('the in-memory keyword index did not load')
    console.log(`in-memory keyword index: not loaded, ${budget}: ${notice}`)
  } else {
    console.log(
      `in-memory keyword index: ${copy.postings} postings, ${copy.segments[0]!.data.terms} terms, ${copy.segments[0]!.data.columns.count} documents in ${megabytes(copy.bytes)} ` +
        `(${(copy.bytes / copy.postings).toFixed(2)} bytes a posting; ${budget}), loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    )
    if (MODE === 'keyword') await compareRankings(deps, copy, queries, LIMIT, summary)
  }
  const url = (k: number) =>
    `${base}/api/search?${new URLSearchParams({ q: queries[k % queries.length]!, mode: MODE, limit: String(LIMIT) })}`
  if (MODE === 'semantic' || MODE === 'hybrid') {
    const idsOnce = async (k: number) => {
      const res = await fetch(url(k), { headers: auth })
      if (res.status !== 200) throw new Error(`search: ${res.status} ${await res.text()}`)
      const body = (await res.json()) as { mode: string; results: { document: { id: string } }[] }
      if (body.mode !== MODE) throw new Error(`search ran ${body.mode}, not ${MODE}`)
      return body.results.map((r) => r.document.id)
    }
    await measureVectors({
      deps,
      userId: user.id,
      mode: MODE,
      queries,
      total: queries.length * roundsFor(size),
      drive,
      fmt,
      httpOnce: idsOnce,
      exactQueries: size <= 20_000 ? 150 : 30,
    })
    await server.stop()
    await deps.close()
    return
  }
  const httpOnce = async (k: number) => {
    const res = await fetch(url(k), { headers: auth })
    if (res.status !== 200) throw new Error(`search: ${res.status} ${await res.text()}`)
    await res.arrayBuffer()
  }
  // The SQL searchDocuments runs for a keyword search, with the filter it builds for no workspace/kind/tag/source.
  const { body: _body, metadata: _metadata, ...summaryColumns } = getTableColumns(documents)
  const filter = sql`d.user_id = ${user.id} and d.status = 'active'`
  const sqlOnce = async (k: number) => {
    const terms = await analyzeQuery(deps.db, queries[k % queries.length]!)
    const hits = await keywordSearchSql(deps.db, user.id, terms, filter, LIMIT)
    const ids = hits.map((h) => h.document_id)
    await Promise.all([
      ids.length ? deps.db.select(summaryColumns).from(documents).where(inArray(documents.id, ids)) : null,
      snippets(deps.db, user.id, ids, terms),
    ])
  }
  const memoryOnce = async (k: number) => {
    const terms = await analyzeQuery(deps.db, queries[k % queries.length]!)
    const ids = copy ? searchKeywordIndex(copy, terms, {}, LIMIT).map((h) => h.document_id) : []
    await Promise.all([
      ids.length ? deps.db.select(summaryColumns).from(documents).where(inArray(documents.id, ids)) : null,
      snippets(deps.db, user.id, ids, terms),
    ])
  }
  // What the HTTP route adds in SQL around the search: key lookup (+ last_used_at), monthly API-call count,
  // rate-limit counter, and the 'search' event.
  const request = new Request(`${base}/api/search`, { headers: auth })
  const guardOnce = async () => {
    const principal = await authenticate(deps, request, () => {})
    await countApiCall(deps, principal.user.id)
    await enforceRateLimit(deps, principal, 'search_per_min', {})
    await recordEvent(deps, principal.user.id, 'search')
  }

  const total = queries.length * roundsFor(size)
  await drive(1, queries.length, httpOnce) // warm-up: every query once
  const http1 = await drive(1, total, httpOnce)
  const http16 = await drive(16, total, httpOnce)
  const bareMemory = await drive(1, total, memoryOnce)
  const guard = await drive(1, total, guardOnce)
  const goal = http1.stats.p50 <= 15 && http1.stats.p99 <= 50 ? 'met' : 'NOT met'
  console.log(
    `HTTP  concurrency 1   ${fmt(http1)}  ${rate(http1)}  (goal p50 ≤ 15 ms, p99 ≤ 50 ms: ${goal}; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')})`,
  )
  const c = http1.cpu
  console.log(
    `      CPU time of the process per request (server, client, PGlite), concurrency 1: p50 ${c.p50.toFixed(1)}  p95 ${c.p95.toFixed(1)}  p99 ${c.p99.toFixed(1)} ms`,
  )
  console.log(`HTTP  concurrency 16  ${fmt(http16)}  ${rate(http16)}`)
  console.log(`bare in-memory ranking (analyzeQuery + searchKeywordIndex + rows/snippets), concurrency 1  ${fmt(bareMemory)}`)
  console.log(`auth + usage + rate-limit + event SQL per request, concurrency 1  ${fmt(guard)}`)
  console.log(`HTTP / bare in-memory ranking at concurrency 1: p50 ${(http1.stats.p50 / bareMemory.stats.p50).toFixed(2)}x`)
  if (process.env.BENCH_SQL === '0') return finish()
  // The same searches ranked in SQL: bare, and over HTTP with the index caches turned off.
  const bare = await drive(1, total, sqlOnce)
  const copies = deps.keywordCache
  deps.keywordCache = new IndexCache(keywordSource, { minDocuments: Number.MAX_SAFE_INTEGER, maxBytes: 0, log: deps.log })
  const httpSql1 = await drive(1, total, httpOnce)
  deps.keywordCache = copies
  console.log(`HTTP  concurrency 1, index caches off (ranked in SQL)  ${fmt(httpSql1)}  ${rate(httpSql1)}`)
  console.log(`bare SQL (analyzeQuery + keywordSearch + rows/snippets), concurrency 1  ${fmt(bare)}`)
  console.log(
    `HTTP / bare SQL at concurrency 1 (both ranked in SQL): p50 ${(httpSql1.stats.p50 / bare.stats.p50).toFixed(2)}x, p95 ${(httpSql1.stats.p95 / bare.stats.p95).toFixed(2)}x ` +
      `(HTTP p50 ${httpSql1.stats.p50.toFixed(1)} ms ≈ SQL ${bare.stats.p50.toFixed(1)} + auth/usage/rate/event ${guard.stats.p50.toFixed(1)} + rest ${(httpSql1.stats.p50 - bare.stats.p50 - guard.stats.p50).toFixed(1)}); ` +
      `index caches speed HTTP p50 up ${(httpSql1.stats.p50 / http1.stats.p50).toFixed(1)}x`,
  )
  return finish()
}

console.log(
  `bench:search — GET /api/search?mode=${MODE}&limit=${LIMIT} on PGlite (embedded, ${process.env.BENCH_DATA_DIR ? `on disk at ${process.env.BENCH_DATA_DIR}` : 'in memory'}), ${navigator.hardwareConcurrency} cores, ` +
    `${queries.length} SciFact dev queries × BENCH_ROUNDS (2) per measurement after one warm-up pass; corpus: ${corpus.length} SciFact abstracts replicated to ${SIZES.join(', ')} documents`,
)
for (const size of SIZES) await run(size)
