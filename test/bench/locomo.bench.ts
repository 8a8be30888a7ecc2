// bun run bench:locomo [--data FILE] [--json FILE] — LoCoMo through the HTTP API of a listening server on the
// embedded default (PGlite): each conversation ingested for a fresh user of its own (every session a thread of
// messages, POST /api/threads), every question with evidence asked once as a search in each mode, and turn and
// session Recall@5, Recall@10 and nDCG@10 printed (scored as docs/decisions.md#locomo-scoring says). --data takes any file in LoCoMo's layout (default: the
// development half); --json writes { "<mode>": { "turn": { r5, r10, ndcg10 }, "session": { … } } }. The
// embedder: as bench:retrieval's (the real model from ../shared/models when its folder is there).
import { writeFileSync } from 'node:fs'
import { relative } from 'node:path'
import { parseArgs } from 'node:util'
import { vacuumAnalyzeAll } from '../../src/jobs/table-upkeep'
import { startWorker } from '../../src/jobs/worker'
import { benchEnv, signUpWithKey, startBenchServer } from './bench-server'
import { ingestConversation, LOCOMO_DEV, loadLocomo, sessionRanking } from './locomo'
import { mean, ndcgAt, recallAt } from './metrics'

const { values: args } = parseArgs({ options: { data: { type: 'string' }, json: { type: 'string' } } })
const file = args.data ?? LOCOMO_DEV
/** Enough for the deepest cut scored (10); a session's rank is that of its first result among these. */
const LIMIT = 10
const began = performance.now()
const seconds = (from: number) => (performance.now() - from) / 1000

const { conversations, questions, adversarial, withoutEvidence } = loadLocomo(file)
const turns = conversations.flatMap((c) => c.turns)
const sessionOf = new Map(turns.map((t) => [t.id, t.session]))

const env = benchEnv({
  DATA_DIR: 'memory://',
  LOG_LEVEL: 'warn',
  DEFAULT_PLAN: 'pro',
  PLAN_PRO_SEARCH_PER_MIN: '1000000',
  PLAN_PRO_DOCUMENTS: '1000000',
})
const { deps, server, base, origin } = await startBenchServer(env)
// The service's own background work, as a server runs it: embedding starts while the ingest goes on.
const worker = startWorker(deps)

const model = deps.embeddingStatus.available
  ? `${deps.embedder!.id} (${deps.embeddingStatus.dtype ?? 'n/a'})${deps.embeddingStatus.provider === 'hash' ? ' — no real model, semantic ranking is not meaningful' : ''}`
  : `none (${deps.embeddingStatus.reason})`
const modes = deps.embedder ? (['keyword', 'semantic', 'hybrid'] as const) : (['keyword'] as const)
console.log(
  `LoCoMo ${relative(process.cwd(), file)}: ${conversations.length} conversations, ${turns.length} turns in ${new Set(sessionOf.values()).size} sessions, ` +
    `${questions.length} questions with evidence (${adversarial} adversarial left out, ${withoutEvidence} without evidence naming a turn skipped)`,
)
console.log(`model ${model}; modes ${modes.join(', ')}; search limit ${LIMIT}; one user per conversation`)

const headersOf = new Map<string, Record<string, string>>()
const turnOf = new Map<string, string>()
let threads = 0
let started = performance.now()
for (const conversation of conversations) {
  const headers = await signUpWithKey(base, origin, `locomo-${conversation.id}@example.com`)
  headersOf.set(conversation.id, headers)
  const ingested = await ingestConversation({ base, headers }, conversation)
  for (const [doc, turn] of ingested.turnOf) turnOf.set(doc, turn)
  threads += ingested.threads
}
const ingestSeconds = seconds(started)
console.log(
  `ingested ${turns.length} messages in ${threads} threads in ${ingestSeconds.toFixed(1)} s (${(turns.length / ingestSeconds).toFixed(0)} messages/s), keyword-searchable on commit`,
)

if (deps.embedder) {
  // Until GET / reports no document left to embed; a failed one is not waited for (it is said below).
  let health = { backlog: 0, failed: 0 }
  for (let last = -1, since = performance.now(), said = performance.now(); ; await Bun.sleep(500)) {
    health = ((await (await fetch(`${base}/`)).json()) as { embeddings: typeof health }).embeddings
    if (health.backlog === 0) break
    if (seconds(said) > 60) {
      console.log(`embedding: ${health.backlog} messages left after ${seconds(started).toFixed(0)} s`)
      said = performance.now()
    }
    if (health.backlog !== last) [last, since] = [health.backlog, performance.now()]
    else if (seconds(since) > 300) throw new Error(`the embedding backlog stayed at ${last} for 5 minutes`)
  }
  const embedSeconds = seconds(started)
  console.log(
    `embedded: backlog empty ${embedSeconds.toFixed(1)} s after the ingest began (${(turns.length / embedSeconds).toFixed(1)} messages/s)` +
      (health.failed ? `; ${health.failed} failed` : ''),
  )
}
await worker.stop()
// What the server's maintenance tick does within 10 s of a bulk ingest (PGlite has no autovacuum).
await vacuumAnalyzeAll(deps)

type Scores = { r5: number; r10: number; ndcg10: number }
const figures: Record<string, { turn: Scores; session: Scores }> = {}
const round = (x: number) => Math.round(x * 10_000) / 10_000
console.log(
  `${'mode'.padEnd(9)}${'turn R@5'.padStart(10)}${'R@10'.padStart(8)}${'nDCG@10'.padStart(9)}   ${'session R@5'.padStart(11)}${'R@10'.padStart(8)}${'nDCG@10'.padStart(9)}`,
)
for (const mode of modes) {
  started = performance.now()
  const turn = { r5: [] as number[], r10: [] as number[], ndcg10: [] as number[] }
  const session = { r5: [] as number[], r10: [] as number[], ndcg10: [] as number[] }
  for (const q of questions) {
    const query = new URLSearchParams({ q: q.question, limit: String(LIMIT), mode })
    const res = await fetch(`${base}/api/search?${query}`, { headers: headersOf.get(q.conv)! })
    if (!res.ok) throw new Error(`search ${q.id}: ${res.status} ${await res.text()}`)
    const body = (await res.json()) as { mode: string; results: { document: { id: string } }[] }
    if (body.mode !== mode) throw new Error(`search ${q.id} ran ${body.mode}, not ${mode}`)
    const ranked = body.results.map((r) => turnOf.get(r.document.id)!)
    const evidence = new Set(q.evidence)
    turn.r5.push(recallAt(ranked, evidence, 5))
    turn.r10.push(recallAt(ranked, evidence, 10))
    turn.ndcg10.push(ndcgAt(ranked, evidence, 10))
    const sessions = sessionRanking(ranked, sessionOf)
    const evidenceSessions = new Set(q.sessions)
    session.r5.push(recallAt(sessions, evidenceSessions, 5))
    session.r10.push(recallAt(sessions, evidenceSessions, 10))
    session.ndcg10.push(ndcgAt(sessions, evidenceSessions, 10))
  }
  const avg = (s: typeof turn): Scores => ({ r5: round(mean(s.r5)), r10: round(mean(s.r10)), ndcg10: round(mean(s.ndcg10)) })
  figures[mode] = { turn: avg(turn), session: avg(session) }
  const { turn: t, session: s } = figures[mode]
  const f = (x: number, width: number) => x.toFixed(4).padStart(width)
  console.log(
    `${mode.padEnd(9)}${f(t.r5, 10)}${f(t.r10, 8)}${f(t.ndcg10, 9)}   ${f(s.r5, 11)}${f(s.r10, 8)}${f(s.ndcg10, 9)}` +
      `   (${questions.length} searches in ${seconds(started).toFixed(1)} s)`,
  )
}
console.log(`time taken: ${seconds(began).toFixed(1)} s`)
if (args.json) {
  writeFileSync(args.json, `${JSON.stringify(figures, null, 2)}\n`)
  console.log(`figures written to ${args.json}`)
}
await server.stop()
await deps.close()
