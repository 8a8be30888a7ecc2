// bench:ingest's throughput part: the texts the service embeds (its chunks, after their title), run through the model alone in the
// same inference process with no database or queue — one text per call, the service's own calls (sorted,
// BATCH_CHARS), and sorted calls of 32 texts — before and after the service embeds them, so a machine busier in one
// half skews neither side; then the service's rate beside the best of them. The host runs each text as its own
// forward pass whatever a call holds (one text, one vector: inference-host.ts), so the ways differ only in how
// many texts cross to the inference process at a time.
import { sql } from 'drizzle-orm'
import { queryRows } from '../../db/client'
import type { Deps } from '../../src/deps'
import { MODEL_BATCH, passChars, planPasses } from '../../src/embedding/embed-batch'
import { embeddingText } from '../../src/embedding/embedding-text'
import { chunkTextOf } from '../../src/retrieval/chunk-text'

export interface ModelAlone {
  texts: string[]
  tokens: number | null
  /** Seconds for every text, per way of cutting them into passes; `runs` of each (before, after the service). */
  seconds: Map<string, number[]>
  /** Runs the first `ways` ways of cutting (all by default). */
  run(ways?: number): Promise<void>
}

export async function modelAlone(deps: Deps): Promise<ModelAlone> {
  const embedder = deps.embedder!
  // What the service embeds: the document's title before each chunk when the model embeds titles (embedding-text.ts).
  const rows = await queryRows<{ title: string | null; content: string }>(
    deps.db,
    sql`select d.title, ${chunkTextOf('c', 'd')} as content from chunks c join documents d on d.id = c.document_id`,
  )
  const texts = rows.map((r) => (embedder.embedsTitle ? embeddingText(r.title, r.content) : r.content))
  const model = embedder.model as unknown as { doEmbed(o: { values: string[]; providerOptions: unknown }): Promise<unknown> }
  const ways: Record<string, string[][]> = {
    'one text per call': texts.map((t) => [t]),
    [`the service's calls (sorted, ≤ ${passChars(embedder)} chars)`]: planPasses(
      texts.map((content) => ({ content })),
      passChars(embedder),
    ).map((p) => p.map((c) => c.content)),
    [`sorted, calls of ${MODEL_BATCH} texts`]: planPasses(
      texts.map((content) => ({ content })),
      Infinity,
    ).map((p) => p.map((c) => c.content)),
  }
  const seconds = new Map<string, number[]>(Object.keys(ways).map((w) => [w, []]))
  const run = async (count = Object.keys(ways).length) => {
    for (const [way, passes] of Object.entries(ways).slice(0, count)) {
      const started = performance.now()
      for (const values of passes) await model.doEmbed({ values, providerOptions: { local: { priority: 'background' } } })
      seconds.get(way)!.push((performance.now() - started) / 1000)
    }
  }
  return { texts, tokens: await countTokens(deps, texts), seconds, run }
}

/** The table: chunks/s, tokens/s, docs/s for the service and each way of running the model alone. */
export function printThroughput(alone: ModelAlone, docs: number, serviceSeconds: number) {
  const rates = (s: number) =>
    `${(alone.texts.length / s).toFixed(1)} | ${alone.tokens ? (alone.tokens / s).toFixed(0) : '—'} | ${(docs / s).toFixed(2)}`
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
  console.log(`  ${docs} documents, ${alone.texts.length} chunks${alone.tokens ? `, ${alone.tokens} tokens` : ''}`)
  console.log(`  | run | chunks/s | tokens/s | docs/s |`)
  console.log(`  |---|---|---|---|`)
  console.log(`  | service (embedding jobs) | ${rates(serviceSeconds)} |`)
  let best = Infinity
  for (const [way, runs] of alone.seconds) {
    best = Math.min(best, mean(runs))
    console.log(
      `  | model alone, ${way} (${runs.length > 1 ? 'mean of before / after' : 'once'}: ${runs.map((s) => s.toFixed(1)).join(' / ')} s) | ${rates(mean(runs))} |`,
    )
  }
  console.log(`  service / fastest model alone: ${((100 * best) / serviceSeconds).toFixed(0)} %`)
}

/** Tokens the local model sees (its tokenizer, truncated at 512); null for other providers. */
async function countTokens(deps: Deps, texts: string[]): Promise<number | null> {
  if (deps.embedder?.provider !== 'local') return null
  const { AutoTokenizer, env } = await import('@huggingface/transformers')
  if (deps.config.embeddings.modelPath) Object.assign(env, { localModelPath: deps.config.embeddings.modelPath, allowRemoteModels: false })
  const tokenizer = await AutoTokenizer.from_pretrained(deps.config.embeddings.model)
  let total = 0
  for (const text of texts) total += Math.min(512, tokenizer.encode(text).length)
  return total
}
