// The fields of a user's documents that the in-memory copies (keyword and vector) filter and boost by, read in
// pages with the event loop handed back between them, so a large user's load never holds the database (on PGlite,
// the API's own thread) for long; and the time filter, written once for both copies and for SQL.
import { sql, type SQL } from 'drizzle-orm'
import { queryRows, type Tx } from '../../db/client'
import type { TimeRange } from '../lib/time-range'

export type { TimeRange } from '../lib/time-range'

/** What a search filters (status, workspace, kind, source, tags, time) and boosts (pinned, rating) a document by. */
export interface DocumentFields {
  id: string
  status: string
  workspace_id: string
  kind: string
  source: string
  tags: string[]
  pinned: boolean
  rating: number
  /** When the document happened (documents.occurred_at) in whole epoch milliseconds, rounded down (OCCURRED_MS). */
  occurred_at: number
}

/**
 * occurred_at as DocumentFields holds it. The SQL functions the copies catch up through (keyword_changes_since,
 * vector_changes_since) compute the same expression. Rounded down, so with whole-millisecond bounds (TimeRange)
 * a copy's comparison and SQL's on the microsecond column agree: floor(x) ≥ a ⇔ x ≥ a, floor(x) < b ⇔ x < b.
 */
export const OCCURRED_MS = sql.raw('floor(extract(epoch from occurred_at) * 1000)::float8')

/**
 * The documents columns a copy holds of each document (DocumentFields besides id), which the loaders read: a change
 * of any of them must move keyword_stats.version, so the trigger of db/functions/keyword-stats.sql fires on exactly
 * these (and on keyword_len and user_id); test/db/functions.test.ts holds the two lists together.
 */
export const DOCUMENT_FIELD_COLUMNS = [
  'status',
  'workspace_id',
  'kind',
  'source',
  'tags',
  'pinned',
  'rating',
  'occurred_at',
] as const satisfies readonly Exclude<keyof DocumentFields, 'id'>[]

const FIELDS_SELECT = sql.join(
  [
    sql`id`,
    ...DOCUMENT_FIELD_COLUMNS.map((column) => (column === 'occurred_at' ? sql`${OCCURRED_MS} as occurred_at` : sql.identifier(column))),
  ],
  sql`, `,
)

/** Whether a document that happened at `ms` passes the range: the one rule both copies apply. */
export const withinTime = (ms: number, range: TimeRange) =>
  (range.after === undefined || ms >= range.after) && (range.before === undefined || ms < range.before)

/** The same rule as SQL conditions on `column` (a timestamptz): none when the range is open. */
export function timeConditions(column: SQL, range: TimeRange): SQL[] {
  const at = (ms: number) => sql`${new Date(ms).toISOString()}::timestamptz`
  return [
    ...(range.after !== undefined ? [sql`${column} >= ${at(range.after)}`] : []),
    ...(range.before !== undefined ? [sql`${column} < ${at(range.before)}`] : []),
  ]
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
      sql`select ${FIELDS_SELECT} from documents
          where user_id = ${userId} ${after !== null ? sql`and id > ${after}` : sql``} order by id limit ${DOCUMENTS_PAGE}`,
    )
    for (const doc of page) doc.occurred_at = Number(doc.occurred_at)
    docs.push(...page)
    if (page.length < DOCUMENTS_PAGE) return docs
    after = page.at(-1)!.id
    await yieldToRequests()
  }
}
