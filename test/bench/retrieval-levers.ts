// bun run bench:levers — what the semantic and hybrid rankings would score on SciFact (150 dev queries) under each
// lever issue 14 names, without re-ingesting per variant: the keyword ranking comes from the service itself (the
// corpus ingested once through the HTTP API, top POOL per query with scores), the vectors from the local model
// through the service's own loader and chunker, per recipe (what text each chunk embeds, how long chunks are),
// cached in .bench-cache/ so fusion variants are evaluated in milliseconds. Semantic = best chunk per document by
// exact cosine, as the service ranks. Needs EMBEDDING_MODEL_PATH (default ../shared/models).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadLocalEmbeddingModel } from '../../src/embedding/local-embedding'
import { createApp } from '../../src/app'
import { loadConfig } from '../../src/config'
import { createDeps } from '../../src/create-deps'
import { chunkText } from '../../src/retrieval/chunking'
import { embeddingText } from '../../src/embedding/embedding-text'
import { mean, ndcgAt, recallAt } from './metrics'
import { loadScifact, type CorpusDoc } from './scifact'

const CACHE = join(import.meta.dir, '../../.bench-cache/levers')
mkdirSync(CACHE, { recursive: true })
const MODEL = 'Xenova/bge-small-en-v1.5'
const MODEL_PATH = process.env.EMBEDDING_MODEL_PATH ?? join(import.meta.dir, '../../../shared/models')
const POOL = 100 // the API's largest page

const { corpus, queries, qrels } = loadScifact()

interface Recipe {
  name: string
  size: number
  overlap: number
  title: boolean
}
const RECIPES: Recipe[] = (process.env.LEVER_RECIPES ?? 'c1200-notitle,c1200-title,c1800-title,c8000-title').split(',').map((name) => {
  const m = /^c(\d+)-(no)?title$/.exec(name)
  if (!m) throw new Error(`recipe ${name}: expected c<size>-title or c<size>-notitle`)
  return { name, size: Number(m[1]), overlap: 200, title: !m[2] }
})

// The model as the service runs it (its own low-priority process), at full priority: nothing else competes here.
const { model, runner } = await loadLocalEmbeddingModel(
  { model: MODEL, modelPath: MODEL_PATH, cacheDir: null, dtype: null },
  { isolation: 'process', nice: 0, threads: null },
)
const embed = async (texts: string[]) => (await model.doEmbed({ values: texts })).embeddings as number[][]

/** Embeds texts sorted by length, one long text per pass as the service does; returns rows in input order. */
async function embedAll(texts: string[], label: string): Promise<Float32Array> {
  const order = texts.map((_, i) => i).sort((a, b) => texts[a]!.length - texts[b]!.length)
  const out = new Float32Array(texts.length * 384)
  const started = performance.now()
  for (let i = 0; i < order.length; ) {
    const pass: number[] = []
    let chars = 0
    while (i < order.length && pass.length < 32 && (pass.length === 0 || chars + texts[order[i]!]!.length <= 1500)) {
      chars += texts[order[i]!]!.length
      pass.push(order[i++]!)
    }
    const vectors = await embed(pass.map((j) => texts[j]!))
    pass.forEach((j, k) => out.set(vectors[k]!, j * 384))
    if (i % 500 < pass.length)
      process.stdout.write(`\r${label}: ${i}/${texts.length} (${(i / ((performance.now() - started) / 1000)).toFixed(1)}/s)   `)
  }
  process.stdout.write('\n')
  return out
}

async function cached(file: string, make: () => Promise<Float32Array>): Promise<Float32Array> {
  const path = join(CACHE, file)
  if (existsSync(path)) return new Float32Array(readFileSync(path).buffer.slice(0))
  const data = await make()
  writeFileSync(path, new Uint8Array(data.buffer))
  return data
}

/** The keyword ranking of each query from the service: ingested once through the API, top POOL with scores. */
async function keywordRankings(): Promise<Map<string, { id: string; score: number }[]>> {
  const path = join(CACHE, `keyword-${POOL}.json`)
  if (existsSync(path)) return new Map(JSON.parse(readFileSync(path, 'utf8')))
  const deps = await createDeps(
    loadConfig({
      DATA_DIR: 'memory://',
      LOG_LEVEL: 'warn',
      DEFAULT_PLAN: 'pro',
      PLAN_PRO_SEARCH_PER_MIN: '1000000',
      PLAN_PRO_DOCUMENTS: '1000000',
      WORKER_IN_PROCESS: 'false',
      EMBEDDING_PROVIDER: 'none',
    }),
  )
  const server = Bun.serve({ port: 0, fetch: createApp(deps).fetch })
  const base = `http://127.0.0.1:${server.port}`
  const origin = deps.config.baseUrl
  const signUp = await fetch(`${base}/api/auth/sign-up`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin },
    body: JSON.stringify({ email: 'levers@example.com', password: 'benchmark password' }),
  })
  const cookie = signUp.headers.getSetCookie()[0]!.split(';')[0]!
  const { key } = (await (
    await fetch(`${base}/api/keys`, { method: 'POST', headers: { cookie, origin, 'content-type': 'application/json' }, body: '{}' })
  ).json()) as { key: string }
  const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' }
  const toBeir = new Map<string, string>()
  for (let i = 0; i < corpus.length; i += 4)
    await Promise.all(
      corpus.slice(i, i + 4).map(async (doc) => {
        const res = await fetch(`${base}/api/documents`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({ title: doc.title || undefined, body: doc.text }),
        })
        toBeir.set(((await res.json()) as { id: string }).id, doc._id)
      }),
    )
  const out = new Map<string, { id: string; score: number }[]>()
  for (const q of queries) {
    const res = await fetch(`${base}/api/search?${new URLSearchParams({ q: q.text, limit: String(POOL), mode: 'keyword' })}`, {
      headers: auth,
    })
    const body = (await res.json()) as { results: { score: number; document: { id: string } }[] }
    out.set(
      q._id,
      body.results.map((r) => ({ id: toBeir.get(r.document.id)!, score: r.score })),
    )
  }
  await server.stop()
  await deps.close()
  writeFileSync(path, JSON.stringify([...out]))
  return out
}

function chunksOf(recipe: Recipe, doc: CorpusDoc) {
  return chunkText(doc.text, { size: recipe.size, overlap: recipe.overlap }).map((c) =>
    embeddingText(recipe.title ? doc.title : null, c.content),
  )
}

const keyword = await keywordRankings()
const queryVectors = await cached('queries.f32', () =>
  embedAll(
    queries.map((q) => 'Represent this sentence for searching relevant passages: ' + q.text),
    'queries',
  ),
)

type Ranked = { id: string; score: number }[]
function semanticRankings(recipe: Recipe, vectors: Float32Array, owner: number[]): Map<string, Ranked> {
  const out = new Map<string, Ranked>()
  queries.forEach((q, qi) => {
    const qv = queryVectors.subarray(qi * 384, qi * 384 + 384)
    const best = new Float64Array(corpus.length).fill(-Infinity)
    for (let c = 0; c < owner.length; c++) {
      let dot = 0
      for (let d = 0, o = c * 384; d < 384; d++) dot += qv[d]! * vectors[o + d]!
      if (dot > best[owner[c]!]!) best[owner[c]!] = dot
    }
    const ids = [...best.keys()].sort((a, b) => best[b]! - best[a]!).slice(0, POOL)
    out.set(
      q._id,
      ids.map((i) => ({ id: corpus[i]!._id, score: best[i]! })),
    )
  })
  void recipe
  return out
}

const score = (rank: (qid: string) => string[]) => {
  const ranked = queries.map((q) => rank(q._id))
  return {
    ndcg: mean(queries.map((q, i) => ndcgAt(ranked[i]!, qrels.get(q._id)!))),
    recall: mean(queries.map((q, i) => recallAt(ranked[i]!, qrels.get(q._id)!))),
  }
}
const fmt = (r: { ndcg: number; recall: number }) => `${r.ndcg.toFixed(4)} / ${r.recall.toFixed(4)}`

/** Min-max normalised scores mixed with alpha for the semantic side, over the top `pool` of each side. */
function minmax(kw: Ranked, sem: Ranked, alpha: number, pool: number) {
  const k = kw.slice(0, pool),
    s = sem.slice(0, pool)
  const kMax = Math.max(0, ...k.map((h) => h.score))
  const [sMin, sMax] = [Math.min(...s.map((h) => h.score)), Math.max(...s.map((h) => h.score))]
  const m = new Map<string, number>()
  for (const h of k) m.set(h.id, (1 - alpha) * (kMax > 0 ? h.score / kMax : 0))
  for (const h of s) m.set(h.id, (m.get(h.id) ?? 0) + alpha * (sMax > sMin ? (h.score - sMin) / (sMax - sMin) : 1))
  return [...m].sort((a, b) => b[1] - a[1]).map(([id]) => id)
}
function rrf(kw: Ranked, sem: Ranked, k: number, pool: number, semWeight = 1) {
  const m = new Map<string, number>()
  kw.slice(0, pool).forEach((h, i) => m.set(h.id, 1 / (k + i + 1)))
  sem.slice(0, pool).forEach((h, i) => m.set(h.id, (m.get(h.id) ?? 0) + semWeight / (k + i + 1)))
  return [...m].sort((a, b) => b[1] - a[1]).map(([id]) => id)
}

console.log(`SciFact: ${corpus.length} documents, ${queries.length} dev queries; nDCG@10 / Recall@100`)
console.log(`keyword (service, HTTP): ${fmt(score((q) => keyword.get(q)!.map((h) => h.id)))}`)
for (const recipe of RECIPES) {
  const texts: string[] = []
  const owner: number[] = []
  corpus.forEach((doc, i) => chunksOf(recipe, doc).forEach((t) => (texts.push(t), owner.push(i))))
  const vectors = await cached(`${recipe.name}.f32`, () => embedAll(texts, recipe.name))
  const semantic = semanticRankings(recipe, vectors, owner)
  const sem = (q: string) => semantic.get(q)!
  const kw = (q: string) => keyword.get(q)!
  console.log(
    `\n${recipe.name}: ${texts.length} chunks (${recipe.size}-char chunks, overlap ${recipe.overlap}, title ${recipe.title ? 'embedded with each chunk' : 'not embedded'})`,
  )
  console.log(`  semantic                     ${fmt(score((q) => sem(q).map((h) => h.id)))}`)
  for (const pool of [30, 50, 100])
    for (const alpha of [0.4, 0.5, 0.6, 0.7])
      console.log(
        `  minmax pool ${String(pool).padStart(3)} alpha ${alpha.toFixed(2)}   ${fmt(score((q) => minmax(kw(q), sem(q), alpha, pool)))}`,
      )
  for (const pool of [30, 50, 100])
    for (const k of [10, 30, 60])
      console.log(
        `  rrf    pool ${String(pool).padStart(3)} k ${String(k).padStart(3)}        ${fmt(score((q) => rrf(kw(q), sem(q), k, pool)))}`,
      )
  feedbackLever(kw, sem, vectors, owner)
}

/**
 * Hybrid feedback (src/retrieval/feedback.ts): the query moved toward the nearest chunk of each of the first
 * `docs` fused results (weight split between them), ranked semantically again and fused again (min-max, α 0.5,
 * pool 100). Printed with each half of the claims (even and odd positions) and how many claims it made better
 * or worse, so a lift that only one half shows is visible.
 */
function feedbackLever(kw: (q: string) => Ranked, sem: (q: string) => Ranked, vectors: Float32Array, owner: number[]) {
  const chunksOf = new Map<string, number[]>()
  owner.forEach((d, c) => chunksOf.set(corpus[d]!._id, [...(chunksOf.get(corpus[d]!._id) ?? []), c]))
  const dot = (v: Float32Array, c: number) => {
    let s = 0
    for (let d = 0, o = c * 384; d < 384; d++) s += v[d]! * vectors[o + d]!
    return s
  }
  const rank = (v: Float32Array): Ranked => {
    const best = new Float64Array(corpus.length).fill(-Infinity)
    for (let c = 0; c < owner.length; c++) best[owner[c]!] = Math.max(best[owner[c]!]!, dot(v, c))
    return [...best.keys()]
      .sort((a, b) => best[b]! - best[a]!)
      .slice(0, POOL)
      .map((i) => ({ id: corpus[i]!._id, score: best[i]! }))
  }
  const base = queries.map((q) => minmax(kw(q._id), sem(q._id), 0.5, POOL))
  const ndcgOf = (ranked: string[][], i: number) => ndcgAt(ranked[i]!, qrels.get(queries[i]!._id)!)
  const half = (ranked: string[][], parity: number) =>
    mean(
      queries
        .map((_, i) => i)
        .filter((i) => i % 2 === parity)
        .map((i) => ndcgOf(ranked, i)),
    )
  console.log(`  hybrid feedback (min-max α 0.5, pool 100; nDCG@10 all, even half, odd half; claims better/worse than without):`)
  console.log(
    `    without                      ${mean(queries.map((_, i) => ndcgOf(base, i))).toFixed(4)}  ${half(base, 0).toFixed(4)}  ${half(base, 1).toFixed(4)}`,
  )
  for (const docs of [1, 3])
    for (const weight of [0.3, 0.6, 1]) {
      const ranked = queries.map((q, qi) => {
        const refined = queryVectors.slice(qi * 384, qi * 384 + 384)
        for (const id of base[qi]!.slice(0, docs)) {
          const own = chunksOf.get(id)!
          const nearest = own.reduce((a, b) =>
            dot(queryVectors.subarray(qi * 384, qi * 384 + 384), b) > dot(queryVectors.subarray(qi * 384, qi * 384 + 384), a) ? b : a,
          )
          for (let d = 0; d < 384; d++) refined[d]! += (weight / docs) * vectors[nearest * 384 + d]!
        }
        const norm = Math.hypot(...refined)
        for (let d = 0; d < 384; d++) refined[d]! /= norm
        return minmax(kw(q._id), rank(refined), 0.5, POOL)
      })
      const deltas = queries.map((_, i) => ndcgOf(ranked, i) - ndcgOf(base, i))
      console.log(
        `    ${docs} document${docs > 1 ? 's' : ' '}, weight ${weight.toFixed(1)}        ${mean(queries.map((_, i) => ndcgOf(ranked, i))).toFixed(4)}  ${half(ranked, 0).toFixed(4)}  ${half(ranked, 1).toFixed(4)}` +
          `  (${deltas.filter((d) => d > 1e-9).length} better, ${deltas.filter((d) => d < -1e-9).length} worse)`,
      )
    }
}
await runner.close()
