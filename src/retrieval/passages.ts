// Passages to ground an answer: for each retrieved document, its chunk that best matches the question (a
// whole chunk, ~1,200 characters — a search snippet is too short to answer from).
import { sql } from 'drizzle-orm'
import { queryRows, type Tx } from '../../db/client'
import { chunkTextOf } from './chunk-text'
import type { FileLocation } from '../../db/schema'
import { orQuery, type Passage, type QueryTerm } from './keyword'

export async function bestPassages(db: Tx, userId: string, documentIds: string[], terms: QueryTerm[]): Promise<Map<string, Passage>> {
  if (documentIds.length === 0) return new Map()
  const query = terms.length ? orQuery(terms) : ''
  const rows = await queryRows<{ document_id: string; content: string; location: FileLocation | null }>(
    db,
    sql`select distinct on (c.document_id) c.document_id, ${chunkTextOf('c', 'd')} as content, c.location
        from chunks c join documents d on d.id = c.document_id
        where c.user_id = ${userId} and c.document_id in (select (jsonb_array_elements_text(${JSON.stringify(documentIds)}::jsonb))::uuid)
        order by c.document_id, ${query ? sql`ts_rank(c.tsv, ${query}::tsquery) desc,` : sql``} c.ordinal`,
  )
  return new Map(rows.map((r) => [r.document_id, { text: r.content.trim(), location: r.location }]))
}
