// The change log the cached indexes catch up through — index_changes, which documents moved a user's version
// (keyword_stats.version: documents' fields and postings, chunks' vectors) — read in one statement
// (index_changes_since, db/functions/index-changes-since.sql) and kept for an hour, so a cached index that fell
// further behind reloads in full instead of catching up (keyword-cache.ts, vector-cache.ts).
import { sql } from 'drizzle-orm'
import { queryRows, type Tx } from '../../db/client'

/** How long the log keeps a change: a cached index older than that reloads in full instead of catching up. */
export const CHANGES_KEPT_MS = 60 * 60_000

/** The user's version now, with the corpus statistics of the same row; null when the user has no documents yet. */
export async function versionNow(db: Tx, userId: string): Promise<{ version: number; documents: number; totalLen: number } | null> {
  const [row] = await queryRows<{ version: number; documents: number; total_len: number }>(
    db,
    sql`select version::float8 as version, documents, total_len from keyword_stats where user_id = ${userId}`,
  )
  return row ? { version: Number(row.version), documents: Number(row.documents), totalLen: Number(row.total_len) } : null
}

/** What changed since a version, as index_changes_since says it. */
export interface LoggedChanges<D> {
  /** The version now, and the corpus statistics of the same snapshot. */
  version: number
  documents: number
  totalLen: number
  /** Every document that changed since, existing or gone. */
  changed: string[]
  /** Those that exist, as they are now: their fields, and their postings when no model was asked for. */
  current: D[]
  /** With a model: the changed documents' chunks with a vector of it, ids and owners in chunk id order, vectors in pgvector's binary form. */
  chunkIds: string[]
  chunkDocuments: string[]
  vectors: Uint8Array
}

/**
 * Changes since version `since` — for the keyword index (`model` null: postings, changes of vectors alone left out)
 * or the vector index of `model` (its vectors) — or incomplete when the log cannot say (pruned past `since`) or more
 * than `maxDocuments` changed; null when the user has no keyword_stats row.
 */
export async function changesSince<D>(
  db: Tx,
  userId: string,
  since: number,
  model: string | null,
  maxDocuments: number,
): Promise<LoggedChanges<D> | { incomplete: true } | null> {
  // Complete when every version in (since, now] wrote a row (each move of the version writes at least one).
  const [row] = await queryRows<{
    version: number
    documents: number
    total_len: number
    complete: boolean
    changed: string | null
    current: string | null
    chunk_ids: string | null
    chunk_documents: string | null
    vectors: Uint8Array | null
  }>(
    db,
    sql`select r_version as version, r_documents as documents, r_total_len as total_len, r_complete as complete,
          r_changed as changed, r_current as current, r_chunk_ids as chunk_ids, r_chunk_documents as chunk_documents,
          r_vectors as vectors
        from index_changes_since(${userId}::uuid, ${since}::bigint, ${model}::text, ${maxDocuments}::int)`,
  )
  if (!row) return null
  if (!row.complete || row.changed === null || row.current === null) return { incomplete: true }
  return {
    version: Number(row.version),
    documents: Number(row.documents),
    totalLen: Number(row.total_len),
    changed: JSON.parse(row.changed),
    current: JSON.parse(row.current),
    chunkIds: row.chunk_ids ? row.chunk_ids.split(' ') : [],
    chunkDocuments: row.chunk_documents ? row.chunk_documents.split(' ') : [],
    vectors: row.vectors ?? new Uint8Array(0),
  }
}

/**
 * Drops changes older than `keptMs` from the log — for each user, every version up to the newest such one, so what
 * is left is always a suffix of the user's versions (a complete log from some version on; a cached index older than
 * it reloads). Answers how many rows went.
 */
export async function pruneChangeLogs(db: Tx, keptMs = CHANGES_KEPT_MS): Promise<number> {
  // The database's clock, the one that stamped the rows.
  const cutoff = sql`now() - ${keptMs}::float8 * interval '1 millisecond'`
  const rows = await queryRows<{ n: number }>(
    db,
    sql`with old as (select user_id, max(version) as upto from index_changes where changed_at < ${cutoff} group by user_id),
      gone as (delete from index_changes c using old where c.user_id = old.user_id and c.version <= old.upto returning 1)
      select count(*)::int as n from gone`,
  )
  return Number(rows[0]?.n ?? 0)
}
