// Writes new documents in one statement: the rows, their chunks and postings, their keyword length, their
// embedding jobs and ingest events — one round trip however many documents, keyword-searchable at commit.
import { sql } from 'drizzle-orm'
import { queryRows, type Tx } from '../../../db/client'
import type { Deps } from '../../deps'
import { catalog } from '../../jobs/catalog'
import { chunkText } from '../../retrieval/chunking'
import { TEXT_CONFIG, TITLE_WEIGHT } from '../../retrieval/keyword-index'
import type { DocumentRow } from './documents.model'

/** A document row as the ingest builds it; keyword_len is computed by the insert. */
export type NewDocument = Omit<DocumentRow, 'keyword_len'>

/**
 * Inserts `rows` with everything indexing.ts would write one document at a time, with the same terms and
 * weights as keyword-index.ts (chunk spans counted once, title and tags TITLE_WEIGHT times), so a document
 * written here ranks exactly as one written there. Data goes in as two JSON parameters: no parameter-count
 * limit, and one parse and plan for the whole batch. The rows' triggers (keyword_stats, storage_totals) fire
 * once per document, as for single inserts; keyword_len is known at insert, so they fire once, not twice.
 */
export async function insertIndexedDocuments(tx: Tx, deps: Deps, rows: NewDocument[]): Promise<void> {
  if (rows.length === 0) return
  const docs = rows.map((d) => ({
    ...d,
    created_at: d.created_at.toISOString(),
    updated_at: d.updated_at.toISOString(),
    heading: [d.title, ...d.tags].join(' \n '),
    job_id: deps.ids.next(),
    event_id: deps.ids.next(),
  }))
  const parts = rows.flatMap((d) =>
    chunkText(d.body).map((c) => ({ id: deps.ids.next(), document_id: d.id, ordinal: c.ordinal, start_offset: c.start, content: c.content, span: d.body.slice(c.start, c.end) })),
  )
  const config = sql.raw(`'${TEXT_CONFIG}'::regconfig`)
  const now = deps.clock.now().toISOString()
  await queryRows(
    tx,
    sql`with d as (
        select * from json_to_recordset(${JSON.stringify(docs)}::json) as x(
          id uuid, user_id uuid, workspace_id uuid, title text, excerpt text, body text, tags text[], kind text, status text,
          archived_from text, source text, source_ref text, external_id text, url text, content_hash text, size_bytes integer,
          pinned boolean, rating smallint, metadata jsonb, index_status text, created_at timestamptz, updated_at timestamptz,
          heading text, job_id uuid, event_id uuid)),
      c as (
        select x.*, to_tsvector(${config}, x.span) as tsv
        from json_to_recordset(${JSON.stringify(parts)}::json) as x(id uuid, document_id uuid, ordinal integer, start_offset integer, content text, span text)),
      terms as (
        select c.document_id, t.lexeme, coalesce(array_length(t.positions, 1), 1) as tf from c, unnest(c.tsv) t
        union all
        select d.id, t.lexeme, ${sql.raw(String(TITLE_WEIGHT))} * coalesce(array_length(t.positions, 1), 1) from d, unnest(to_tsvector(${config}, d.heading)) t),
      p as (select document_id, lexeme, sum(tf)::real as tf from terms group by document_id, lexeme),
      len as (select document_id, sum(tf)::real as dl from p group by document_id),
      new_documents as (
        insert into documents (id, user_id, workspace_id, title, excerpt, body, tags, kind, status, archived_from, source, source_ref,
          external_id, url, content_hash, size_bytes, pinned, rating, metadata, index_status, keyword_len, created_at, updated_at)
        select d.id, d.user_id, d.workspace_id, d.title, d.excerpt, d.body, d.tags, d.kind, d.status, d.archived_from, d.source, d.source_ref,
          d.external_id, d.url, d.content_hash, d.size_bytes, d.pinned, d.rating, d.metadata, d.index_status, coalesce(len.dl, 0), d.created_at, d.updated_at
        from d left join len on len.document_id = d.id
        returning id),
      new_chunks as (
        insert into chunks (id, user_id, document_id, workspace_id, ordinal, start_offset, content, tsv)
        select c.id, d.user_id, c.document_id, d.workspace_id, c.ordinal, c.start_offset, c.content, c.tsv from c join d on d.id = c.document_id),
      new_postings as (
        insert into postings (user_id, term, document_id, tf, dl)
        select d.user_id, p.lexeme, p.document_id, p.tf, len.dl from p join len using (document_id) join d on d.id = p.document_id),
      new_jobs as (
        insert into jobs (id, user_id, kind, payload, status, max_attempts, run_at, created_at, updated_at)
        select d.job_id, d.user_id, 'embed-document', json_build_object('document_id', d.id)::jsonb, 'queued',
          ${catalog['embed-document'].maxAttempts}, ${now}::timestamptz, ${now}::timestamptz, ${now}::timestamptz from d),
      new_events as (
        insert into events (id, user_id, type, created_at) select d.event_id, d.user_id, 'ingest', d.created_at from d)
      select count(*)::int as n from new_documents`,
  )
}
