// Reads what changed in a user's keyword index since a copy's version, from the log the version triggers keep
// (keyword_changes, migration 0028): the corpus statistics now, which documents changed, and the fields and
// postings of those that still exist — in one query (keyword_changes_since, migration 0028), so the statistics
// and the documents are of one snapshot.
import { sql } from 'drizzle-orm'
import { queryRows, type Tx } from '../../db/client'
import type { DocumentFields } from './document-fields'

/** A changed document as it is now: its fields and its postings (term, tf, dl). */
export interface ChangedDocument extends DocumentFields {
  postings: [string, number, number][] | null
}

export type Changes =
  | {
      version: number
      documents: number
      totalLen: number
      /** Every document that changed since the copy's version, existing or gone. */
      changed: string[]
      /** Those that exist, as they are now. */
      current: ChangedDocument[]
    }
  /** The log no longer holds every version since the copy's (pruned), or more documents changed than `maxDocuments`. */
  | { version: number; incomplete: true }

/** Changes since `since`, or null when the user has no keyword statistics. */
export async function changesSince(db: Tx, userId: string, since: number, maxDocuments: number): Promise<Changes | null> {
  // Complete when every version in (since, now] wrote a row (each move of the version writes at least one).
  const [row] = await queryRows<{
    version: number
    documents: number
    total_len: number
    complete: boolean
    changed: string | null
    current: string | null
  }>(
    db,
    sql`select r_version as version, r_documents as documents, r_total_len as total_len, r_complete as complete,
          r_changed as changed, r_current as current
        from keyword_changes_since(${userId}::uuid, ${since}::bigint, ${maxDocuments}::int)`,
  )
  if (!row) return null
  const version = Number(row.version)
  if (!row.complete || row.changed === null || row.current === null) return { version, incomplete: true }
  return {
    version,
    documents: Number(row.documents),
    totalLen: Number(row.total_len),
    changed: JSON.parse(row.changed),
    current: JSON.parse(row.current),
  }
}
