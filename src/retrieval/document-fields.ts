// The fields of a user's documents that the in-memory copies (keyword and vector) filter and boost by, read in
// pages with the event loop handed back between them, so a large user's load never holds the database (on PGlite,
// the API's own thread) for long.
import { sql } from 'drizzle-orm'
import { queryRows, type Tx } from '../../db/client'

/** What a search filters (status, workspace, kind, source, tags) and boosts (pinned, rating) a document by. */
export interface DocumentFields {
  id: string
  status: string
  workspace_id: string
  kind: string
  source: string
  tags: string[]
  pinned: boolean
  rating: number
}

/** Documents per query of a load. */
const DOCUMENTS_PAGE = 500

export const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve))

/** Every document of the user, in id order. */
export async function loadDocumentFields(db: Tx, userId: string): Promise<DocumentFields[]> {
  const docs: DocumentFields[] = []
  for (let after: string | null = null; ; ) {
    const page: DocumentFields[] = await queryRows<DocumentFields>(
      db,
      sql`select id, status, workspace_id, kind, source, tags, pinned, rating from documents
          where user_id = ${userId} ${after !== null ? sql`and id > ${after}` : sql``} order by id limit ${DOCUMENTS_PAGE}`,
    )
    docs.push(...page)
    if (page.length < DOCUMENTS_PAGE) return docs
    after = page.at(-1)!.id
    await yieldToRequests()
  }
}
