// Keeps a document's chunks and postings in step with its content, inside the writer's transaction, so a
// document is keyword-searchable the moment its ingest or update commits. Each indexing gives the document the next
// number of its owner's index (documents.doc_no) and its postings as one block a term (term_blocks), which the
// maintenance's compaction merges with others later (db/functions/compact-term-blocks.sql). Embeddings come later (a job). A message
// is indexed with the messages before it in its thread (message-context.ts); its chunks hold its own text only.
import { eq, sql } from 'drizzle-orm'
import type { Tx } from '../../db/client'
import { chunks, documents, documentTerms, type FileSection, keywordStats, termBlocks } from '../../db/schema'
import { chunkSections, contentSpans } from './chunking'
import { CONTEXT_WEIGHT, contextWords, isMessage, MESSAGE_WEIGHT, messagesBefore } from './message-context'

/** Title and tags count this many times a body occurrence (a light BM25F). */
export const TITLE_WEIGHT = 2
export const TEXT_CONFIG = 'english'

interface IndexableDocument {
  id: string
  user_id: string
  workspace_id: string
  title: string
  tags: string[]
  body: string
  /** A message's thread and place in it: it is indexed with the messages before it (message-context.ts). */
  thread_id?: string | null
  position?: number | null
  /** A file's text: where each part of the body was in the file, so each chunk knows its page (file-locations.ts). */
  sections?: FileSection[] | null
}

export async function indexKeywords(tx: Tx, doc: IndexableDocument, newId: () => string): Promise<void> {
  await tx.delete(chunks).where(eq(chunks.document_id, doc.id))
  // The next number first: it locks the user's keyword_stats row, which a compaction waits for (compact-term-blocks.sql).
  const [numbered] = await tx
    .insert(keywordStats)
    .values({ user_id: doc.user_id, last_no: 1 })
    .onConflictDoUpdate({ target: keywordStats.user_id, set: { last_no: sql`${keywordStats.last_no} + 1` } })
    .returning({ no: keywordStats.last_no })
  // Its postings out of their blocks, through its listed terms.
  await tx.execute(sql`select remove_postings(array[${doc.id}]::uuid[], array[doc_no]) from ${documents} where id = ${doc.id}`)
  const parts = chunkSections(doc.body, doc.sections)
  const spans = contentSpans(doc.body, parts)
  await tx.insert(chunks).values(
    parts.map((c, i) => ({
      id: newId(),
      user_id: doc.user_id,
      document_id: doc.id,
      workspace_id: doc.workspace_id,
      ordinal: c.ordinal,
      start_offset: c.start,
      ...spans[i]!,
      location: c.location,
      // Only the span the chunk owns: overlaps are not counted twice.
      tsv: sql`to_tsvector(${TEXT_CONFIG}::regconfig, ${doc.body.slice(c.start, c.end)})`,
    })),
  )
  const heading = [doc.title, ...doc.tags].join(' \n ')
  const placed = { thread_id: doc.thread_id ?? null, position: doc.position ?? null }
  // A message: its own words weigh MESSAGE_WEIGHT, the messages before it CONTEXT_WEIGHT (message-context.ts).
  const context = isMessage(placed) ? contextWords((await messagesBefore(tx, [{ id: doc.id, ...placed }])).get(doc.id)!) : null
  const weight = context === null ? 1 : MESSAGE_WEIGHT
  // Postings, the document's terms, number and keyword length from one grouping of its terms.
  await tx.execute(sql`
    with p as (
      select lexeme, sum(tf) as tf from (
        select t.lexeme, ${weight} * coalesce(array_length(t.positions, 1), 1) as tf
          from ${chunks} c, unnest(c.tsv) t where c.document_id = ${doc.id}
        union all
        select t.lexeme, ${TITLE_WEIGHT * weight} * coalesce(array_length(t.positions, 1), 1)
          from unnest(to_tsvector(${TEXT_CONFIG}::regconfig, ${heading})) t
        union all
        select t.lexeme, ${CONTEXT_WEIGHT} * coalesce(array_length(t.positions, 1), 1)
          from unnest(to_tsvector(${TEXT_CONFIG}::regconfig, ${context}::text)) t
      ) terms group by lexeme),
    len as (select coalesce(sum(tf), 0)::real as dl from p),
    written as (
      insert into ${termBlocks} (user_id, term, first_no, n, doc_nos, tfs, dls)
      select ${doc.user_id}::uuid, p.lexeme, ${numbered!.no}::int, 1, array[${numbered!.no}::int], array[p.tf::real], array[len.dl] from p, len),
    listed as (
      insert into ${documentTerms} (document_id, user_id, terms, tfs)
      select ${doc.id}::uuid, ${doc.user_id}::uuid, array_agg(lexeme order by lexeme), array_agg(tf::real order by lexeme) from p having count(*) > 0)
    update ${documents} set keyword_len = len.dl, doc_no = ${numbered!.no}::int from len where ${documents.id} = ${doc.id}`)
}
