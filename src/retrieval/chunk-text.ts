// A chunk's text in SQL: chunks keep where their content is in the document's body (content_from, content_chars: code
// points, chunking.ts's contentSpans), not a second copy of it — the text was stored twice, ~150 MB of 1.3 GB at
// 100,000 documents. Chunks written before keep their content column, read first.
import { type SQL, sql } from 'drizzle-orm'
import { chunks, documents } from '../../db/schema'

/** The text of chunk `c` of document `d` (aliases of a query joining chunks to their documents). */
export const chunkTextOf = (c: string, d: string): SQL<string> =>
  sql<string>`coalesce(${sql.raw(c)}.content, substr(${sql.raw(d)}.body, ${sql.raw(c)}.content_from + 1, ${sql.raw(c)}.content_chars))`

/** The same for drizzle's query builder: chunks joined to documents. */
export const chunkText: SQL<string> = sql<string>`coalesce(${chunks.content}, substr(${documents.body}, ${chunks.content_from} + 1, ${chunks.content_chars}))`
