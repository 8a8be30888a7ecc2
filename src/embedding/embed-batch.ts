// Embedding many documents together: the pending chunks of every document claimed (any users), sorted by
// length so that a forward pass pads little, embedded in passes of up to MODEL_BATCH texts and BATCH_CHARS
// characters (at `background` priority: a search's query goes first in the inference process), and each
// document written in its own short transaction the moment its last chunk is embedded — so one document that
// fails (its embedding or its write) fails alone, and the others keep their vectors. A document deleted or edited meanwhile simply
// gets nothing written: its chunks are gone, and an edit queued a job of its own.
import { and, eq, inArray, isNull, ne, not, or, sql } from 'drizzle-orm'
import { chunks, documents } from '../../db/schema'
import { embedDocuments, type Embedder } from './embeddings'
import { embeddingText, messageEmbeddingText } from './embedding-text'
import { messagesBefore } from '../retrieval/message-context'
import type { Deps } from '../deps'
import { enqueueJob, enqueueJobs } from '../queue/job-kinds'
import { nextTurn } from '../lib/next-turn'
import { chunkText } from '../retrieval/chunk-text'

/** Texts per forward pass (or request) at most. */
export const MODEL_BATCH = 32
/**
 * Characters per forward pass of the local model at most (a longer text goes alone). Measured on bge-small
 * int8 (ONNX Runtime, 2 shared cores, SciFact chunks sorted by length): one text per pass embeds 12–13
 * texts/s, 8 per pass 7, 32 per pass 6.2–6.5 — large passes lose more to attention over the whole padded batch
 * than they win in per-call overhead, so texts are grouped only while short (README "Embedding throughput").
 * Measured again with inference in its own process (nice 10): 1,500 still at or near the best of 1, 1,500,
 * 4,000, 10,000 and unbounded. The inference process now runs each text in a pass of its own, so that a text's
 * vector does not depend on its batch (inference-host.ts): a group is one call to it, not one forward pass.
 * An endpoint (or the hash embedder) takes MODEL_BATCH texts per request, whatever their length.
 */
export const BATCH_CHARS = 1_500
/** Passes sent ahead of the one being written. */
const PIPELINE = 3

export const passChars = (embedder: Embedder) => (embedder.provider === 'local' ? BATCH_CHARS : Infinity)

/** The texts sorted by length and grouped into passes of up to MODEL_BATCH texts and `maxChars` characters. */
export function planPasses<T extends { content: string }>(texts: T[], maxChars: number): T[][] {
  const passes: T[][] = []
  let chars = 0
  for (const c of [...texts].sort((a, b) => a.content.length - b.content.length)) {
    const last = passes.at(-1)
    if (last && last.length < MODEL_BATCH && chars + c.content.length <= maxChars) last.push(c)
    else passes.push([c]), (chars = 0)
    chars += c.content.length
  }
  return passes
}

interface PendingChunk {
  id: string
  document_id: string
  /** What is embedded: the chunk after its document's title (a message's: after the messages before it) when the model embeds titles (embedding-text.ts). */
  content: string
}

/** What became of each document: null when it was done (or had nothing to do), else why it failed. */
export type Outcomes = Map<string, string | null>

export async function embedDocumentsTogether(
  deps: Deps,
  documentIds: string[],
  keepAlive: () => Promise<void> = async () => {},
): Promise<Outcomes> {
  const ids = [...new Set(documentIds)]
  const outcomes: Outcomes = new Map()
  const embedder = deps.embedder
  const pending = embedder ? await pendingChunks(deps, embedder, ids) : []
  const byDocument = Map.groupBy(pending, (c) => c.document_id)
  const left = new Map([...byDocument].map(([id, list]) => [id, list.length]))
  const vectors = new Map<string, number[] | null>()
  const finish = async (documentId: string) => {
    const list = byDocument.get(documentId) ?? []
    outcomes.set(
      documentId,
      await writeDocument(
        deps,
        embedder,
        documentId,
        list.map((c) => ({ id: c.id, vector: vectors.get(c.id) ?? null })),
      ),
    )
    // On PGlite every query settles as a microtask: hand the event loop back between documents, so requests
    // (and timers) are answered while a batch is written, not after it.
    await nextTurn()
  }
  // Documents with nothing left to embed (or no model to embed with) are finished at once, together.
  const nothingToEmbed = ids.filter((id) => !left.has(id))
  const error = await finishUnembedded(deps, embedder, nothingToEmbed)
  for (const id of nothingToEmbed) outcomes.set(id, error)
  if (!embedder || !pending.length) return outcomes

  const batches = planPasses(pending, passChars(embedder))
  // Passes are sent PIPELINE ahead: the inference process (or endpoint) always has the next one queued while
  // this thread writes the finished documents, and never waits for us to come back for more.
  const start = (batch: PendingChunk[]) =>
    embedBatch(
      embedder,
      batch.filter((c) => !outcomes.has(c.document_id)),
    )
  const inflight: ReturnType<typeof start>[] = []
  let started = 0
  const fill = () => {
    while (started < batches.length && inflight.length < PIPELINE) inflight.push(start(batches[started++]!))
  }
  fill()
  for (let b = 0; b < batches.length; b++) {
    const result = await inflight.shift()!
    fill()
    for (const [documentId, error] of result.failed) if (!outcomes.has(documentId)) outcomes.set(documentId, error)
    const done: string[] = []
    for (const [chunk, vector] of result.vectors) {
      if (outcomes.has(chunk.document_id)) continue
      vectors.set(chunk.id, vector)
      const remaining = left.get(chunk.document_id)! - 1
      left.set(chunk.document_id, remaining)
      if (remaining === 0) done.push(chunk.document_id)
    }
    for (const documentId of done) await finish(documentId)
    await keepAlive()
  }
  return outcomes
}

/** The chunks of these documents the loaded model has not processed, in document order, as the text to embed. */
async function pendingChunks(deps: Deps, embedder: Embedder, ids: string[]): Promise<PendingChunk[]> {
  if (!ids.length) return []
  const rows = await deps.db
    .select({
      id: chunks.id,
      document_id: chunks.document_id,
      title: documents.title,
      content: chunkText,
      thread_id: documents.thread_id,
      position: documents.position,
      speaker: documents.speaker,
    })
    .from(chunks)
    .innerJoin(documents, eq(documents.id, chunks.document_id))
    .where(and(inArray(chunks.document_id, ids), or(isNull(chunks.embedding_model), ne(chunks.embedding_model, embedder.id))))
    .orderBy(chunks.document_id, chunks.ordinal)
  if (!embedder.embedsTitle) return rows.map((r) => ({ id: r.id, document_id: r.document_id, content: r.content }))
  // A message is read after the messages before it, as its keyword index counts them (message-context.ts).
  const messages = [
    ...new Map(rows.map((r) => [r.document_id, { id: r.document_id, thread_id: r.thread_id, position: r.position }])).values(),
  ]
  const before = await messagesBefore(deps.db, messages)
  return rows.map((r) => {
    const context = before.get(r.document_id)
    return {
      id: r.id,
      document_id: r.document_id,
      content: context ? messageEmbeddingText(r.title, r.speaker, r.content, context) : embeddingText(r.title, r.content),
    }
  })
}

/**
 * One forward pass over the batch; never rejects. When a pass over several documents fails, each document is
 * tried alone, so a text the model (or an endpoint) refuses fails its own document only.
 */
async function embedBatch(embedder: Embedder, batch: PendingChunk[]) {
  const vectors = new Map<PendingChunk, number[] | null>()
  const failed = new Map<string, string>()
  const attempt = async (part: PendingChunk[]) => {
    const result = await embedDocuments(
      embedder,
      part.map((c) => c.content),
      'background',
    )
    part.forEach((c, i) => vectors.set(c, result[i] ?? null))
  }
  const documentIds = [...new Set(batch.map((c) => c.document_id))]
  try {
    await attempt(batch)
  } catch (error) {
    if (documentIds.length === 1) failed.set(documentIds[0]!, messageOf(error))
    else
      for (const documentId of documentIds) {
        await attempt(batch.filter((c) => c.document_id === documentId)).catch((e) => failed.set(documentId, messageOf(e)))
      }
  }
  return { vectors, failed }
}

/**
 * Writes a document's vectors and marks it indexed in one transaction. Indexed only once every current chunk
 * carries this model's vector: an edit meanwhile replaced the chunks (and queued its own job), so a stale run
 * leaves the status to that job. Then its neighbours are looked for.
 */
async function writeDocument(
  deps: Deps,
  embedder: Embedder | null,
  documentId: string,
  embedded: { id: string; vector: number[] | null }[],
): Promise<string | null> {
  try {
    await deps.db.transaction(async (tx) => {
      // The document's row before the chunks: their trigger takes the user's keyword_stats row, which a
      // single UPDATE of the document (a rating, an archive) takes after the document's. Opposite orders deadlock.
      await tx.select({ id: documents.id }).from(documents).where(eq(documents.id, documentId)).for('no key update')
      // Every chunk's vector in one statement (one trigger run, one round trip), all visible at the commit with
      // the document's `indexed`: a reader never sees half of a document's vectors.
      if (embedder && embedded.length) {
        // The ids again as an array: the planner, with no statistics, would join the recordset to a scan of every
        // chunk; `= any(ids)` reads the few by primary key.
        const rows = JSON.stringify(embedded.map((c) => ({ id: c.id, v: c.vector ? `[${c.vector.join(',')}]` : null })))
        const ids = `{${embedded.map((c) => c.id).join(',')}}`
        await tx.execute(
          sql`update ${chunks} set embedding = x.v::vector, embedding_model = ${embedder.id}
              from jsonb_to_recordset(${rows}::jsonb) as x(id uuid, v text) where ${chunks.id} = x.id and ${chunks.id} = any(${ids}::uuid[])`,
        )
      }
      const stale = embedder
        ? sql`exists (select 1 from ${chunks} where ${chunks.document_id} = ${documentId} and ${chunks.embedding_model} is distinct from ${embedder.id})`
        : sql`false`
      const [done] = await tx
        .update(documents)
        .set({ index_status: 'indexed' })
        .where(and(eq(documents.id, documentId), not(stale)))
        .returning({ user_id: documents.user_id })
      if (done) await enqueueJob(tx, deps, 'suggest-links', { document_id: documentId }, done.user_id)
    })
    return null
  } catch (error) {
    return messageOf(error)
  }
}

/**
 * Documents with no chunk left to embed marked indexed and their neighbours looked for, all in one transaction of
 * three statements — a transaction of three each cost most of what a bulk ingest's jobs cost with no model (every
 * document's job is one of these then). As writeDocument: rows locked first, indexed only if no chunk is stale.
 */
async function finishUnembedded(deps: Deps, embedder: Embedder | null, ids: string[]): Promise<string | null> {
  if (ids.length === 0) return null
  const list = `{${ids.join(',')}}`
  try {
    await deps.db.transaction(async (tx) => {
      await tx.execute(sql`select id from ${documents} where id = any(${list}::uuid[]) order by id for no key update`)
      const stale = embedder
        ? sql`exists (select 1 from ${chunks} where ${chunks.document_id} = ${documents.id} and ${chunks.embedding_model} is distinct from ${embedder.id})`
        : sql`false`
      const done = await tx
        .update(documents)
        .set({ index_status: 'indexed' })
        .where(and(sql`${documents.id} = any(${list}::uuid[])`, not(stale)))
        .returning({ id: documents.id, user_id: documents.user_id })
      await enqueueJobs(
        tx,
        deps,
        'suggest-links',
        done.map((d) => ({ payload: { document_id: d.id }, userId: d.user_id })),
      )
    })
    return null
  } catch (error) {
    return messageOf(error)
  }
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))
