// Writes new documents in one statement: the rows, their chunks and postings (in blocks), their keyword length, their
// embedding jobs and ingest events — one round trip however many documents, keyword-searchable at commit.
import { sql } from 'drizzle-orm'
import { queryRows, type Tx } from '../../../db/client'
import { pgTimestampText } from '../../../db/pg-timestamps'
import type { Deps } from '../../deps'
import { JOB_ATTEMPTS } from '../../queue/job-kinds'
import { chunkSections, contentSpans } from '../../retrieval/chunking'
import { firstStep, reindexFollowers } from '../../retrieval/indexing'
import { TEXT_CONFIG, TITLE_WEIGHT } from '../../retrieval/keyword-index'
import { CONTEXT_WEIGHT, contextWords, MESSAGE_WEIGHT, messagesBefore } from '../../retrieval/message-context'
import type { DocumentRow } from './documents.model'

/** A document row as the ingest builds it; keyword_len and doc_no are given by the insert. */
export type NewDocument = Omit<DocumentRow, 'keyword_len' | 'doc_no'>

/**
 * Inserts `rows` with everything indexing.ts would write one document at a time, with the same terms and
 * weights as keyword-index.ts (chunk spans counted once, title and tags TITLE_WEIGHT times), so a document
 * written here ranks exactly as one written there — a message with the messages before it, from the batch or
 * stored (message-context.ts), and the stored messages after it re-indexed. One call of the SQL function
 * insert_indexed_documents (db/functions/insert-indexed-documents.sql: a function, so its plan is reused), with the
 * rows as two JSON parameters: no parameter-count limit, one parse for the whole batch. keyword_len is known at
 * insert, and the triggers on documents fire once per statement (db/functions/keyword-stats.sql, storage-totals.sql).
 */
export async function insertIndexedDocuments(tx: Tx, deps: Deps, rows: NewDocument[]): Promise<void> {
  if (rows.length === 0) return
  const before = await messagesBefore(tx, rows, rows)
  const weightOf = (id: string) => (before.has(id) ? MESSAGE_WEIGHT : 1)
  const step = firstStep(deps)
  const docs = rows.map((d) => ({
    ...d,
    index_status: step.index_status,
    created_at: d.created_at.toISOString(),
    updated_at: d.updated_at.toISOString(),
    // PostgreSQL's text, not JSON's ISO string: it can say a year before 1 (db/pg-timestamps.ts).
    occurred_at: pgTimestampText(d.occurred_at),
    heading: [d.title, ...d.tags].join(' \n '),
    weight: weightOf(d.id),
    context: before.has(d.id) ? contextWords(before.get(d.id)!) : null,
    context_weight: CONTEXT_WEIGHT,
    job_id: deps.ids.next(),
    event_id: deps.ids.next(),
  }))
  const parts = rows.flatMap((d) => {
    const sections = chunkSections(d.body, d.sections)
    const spans = contentSpans(d.body, sections)
    return sections.map((c, i) => ({
      id: deps.ids.next(),
      document_id: d.id,
      ordinal: c.ordinal,
      start_offset: c.start,
      ...spans[i]!,
      span: d.body.slice(c.start, c.end),
      weight: weightOf(d.id),
      location: c.location,
    }))
  })
  await queryRows(
    tx,
    sql`select insert_indexed_documents(${JSON.stringify(docs)}::json, ${JSON.stringify(parts)}::json, ${TEXT_CONFIG}::regconfig,
          ${TITLE_WEIGHT}::int, ${step.job}, ${JOB_ATTEMPTS[step.job]}::int, ${deps.clock.now().toISOString()}::timestamptz)`,
  )
  // A message written between stored ones (or before them) is context of those after it.
  if (before.size > 0) await reindexFollowers(tx, deps, rows, rows)
}
