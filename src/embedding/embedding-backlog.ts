// The embedding backlog: documents not embedded by the loaded model — what background re-embedding works
// through, what GET / reports and what searches needing vectors warn about. A document is stale when one of
// its chunks was not processed by the model (chunks.embedding_model differs); a chunk with nothing to embed
// is processed with no vector, so it never counts as stale. While stale, a document's index_status says
// `pending` (`failed` once its attempts are spent; those are tried again after RETRY_FAILED_MS).
import { sql, type SQL } from 'drizzle-orm'
import { queryRows, type Tx } from '../../db/client'
import type { Deps } from '../deps'

/** A document whose re-embedding failed for a model is tried again for it after this long. */
export const RETRY_FAILED_MS = 60 * 60_000

/** `d` (documents) has a chunk the model has not processed. */
const staleChunk = (model: string) =>
  sql`exists (select 1 from chunks c where c.document_id = d.id and c.embedding_model is distinct from ${model})`

/** Not already in someone's hands: a queued or running embedding job for this document (and model). */
const notQueued = (model: string) =>
  sql`d.id not in (select (j.payload->>'document_id')::uuid from jobs j
        where j.status in ('queued', 'running') and j.payload->>'document_id' is not null
          and (j.kind = 'embed-document' or (j.kind = 'reembed-document' and j.payload->>'model' = ${model})))`

/** Not given up on lately: its re-embedding for this model did not fail within RETRY_FAILED_MS. */
const notFailedLately = (model: string, now: Date) =>
  sql`d.id not in (select (j.payload->>'document_id')::uuid from jobs j
        where j.status = 'failed' and j.kind = 'reembed-document' and j.payload->>'model' = ${model} and j.payload->>'document_id' is not null
          and j.updated_at > ${new Date(now.getTime() - RETRY_FAILED_MS).toISOString()}::timestamptz)`

/** Marks every stale document `pending` (the moment a model is switched in); answers how many changed. */
export async function markStalePending(db: Tx, model: string, now: Date): Promise<number> {
  const rows = await queryRows<{ id: string }>(
    db,
    // A file being read (`processing`) keeps saying so: its extraction indexes it when done.
    sql`update documents d set index_status = 'pending'
        where d.index_status not in ('pending', 'processing') and ${staleChunk(model)} and ${notFailedLately(model, now)}
        returning d.id`,
  )
  return rows.length
}

/** The next stale documents after `after` (by id) that no job holds yet: a batch of background work. */
export async function nextStaleBatch(db: Tx, model: string, after: string | null, limit: number, now: Date) {
  return queryRows<{ id: string; user_id: string }>(
    db,
    sql`select d.id, d.user_id from documents d
        where ${after ? sql`d.id > ${after}::uuid and` : sql``} ${staleChunk(model)}
          and ${notQueued(model)} and ${notFailedLately(model, now)}
        order by d.id
        limit ${limit}`,
  )
}

/** Documents waiting for the loaded model (`pending`) and given up on (`failed`), over all users. */
export async function countBacklog(db: Tx): Promise<{ pending: number; failed: number }> {
  const [row] = await queryRows<{ pending: number; failed: number }>(
    db,
    sql`select count(*) filter (where index_status = 'pending')::int as pending,
               count(*) filter (where index_status = 'failed')::int as failed
        from documents`,
  )
  return { pending: Number(row?.pending ?? 0), failed: Number(row?.failed ?? 0) }
}

/**
 * Counted up to this many: every semantic search counts, and a backlog of thousands read row by row held the
 * connection (on PGlite, the API's thread) for tens of ms per search, to print a number no one needs exactly.
 */
export const UNEMBEDDED_COUNT_CAP = 1_000

/**
 * How many of the user's documents a search covers (`filter` on documents `d`) semantic ranking cannot see yet, up
 * to UNEMBEDDED_COUNT_CAP. Read from the partial index of documents not indexed (a fenced subquery naming only
 * its columns): asked with the search's filter, the planner walked every active document of the user by
 * documents_user_status_idx to find none (4 ms at 3,000 documents, growing with the corpus).
 */
export async function countUnembedded(db: Tx, userId: string, filter: SQL): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    db,
    sql`select count(*)::int as n from (
          select 1 from (select * from documents d where d.user_id = ${userId} and d.index_status <> 'indexed' offset 0) d
          where ${filter} limit ${UNEMBEDDED_COUNT_CAP}) capped`,
  )
  return Number(row?.n ?? 0)
}

/** The `embeddings` part of GET /: configured and loaded model, and the backlog of the loaded one. */
export async function embeddingHealth(deps: Deps) {
  const { configured, provider, model, dtype, available, reason } = deps.embeddingStatus
  const backlog = deps.embedder ? await countBacklog(deps.db) : null
  return {
    provider,
    model,
    dtype,
    configured,
    available,
    ...(reason ? { reason } : {}),
    backlog: backlog?.pending ?? null,
    failed: backlog?.failed ?? null,
  }
}

/** The search notice for documents semantic ranking cannot see yet; undefined when there are none. */
export function unembeddedNotice(n: number): string | undefined {
  if (n === 0) return undefined
  if (n >= UNEMBEDDED_COUNT_CAP)
    return `${UNEMBEDDED_COUNT_CAP} or more of the documents searched are not embedded by the current model yet (embedding runs in the background); semantic ranking cannot find them until then`
  return `${n} of the documents searched ${n === 1 ? 'is' : 'are'} not embedded by the current model yet (embedding runs in the background); semantic ranking cannot find ${n === 1 ? 'it' : 'them'} until then`
}
