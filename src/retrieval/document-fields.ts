// The fields of a user's documents that a search filters and boosts by, read in pages with the event loop handed
// back between them, so a large user's load never holds the database (on PGlite, the API's own thread) for long;
// and the filter a search passes, written once: as SQL here (filterSql), as a test of the cached indexes' columns
// in document-columns.ts (filterTest), both from the same DocumentFilter.
import { sql, type SQL } from 'drizzle-orm'
import { queryRows, type Tx } from '../../db/client'
import type { TimeRange } from '../lib/time-range'
import { nextTurn } from '../lib/next-turn'

export type { TimeRange } from '../lib/time-range'

/** What a search filters (status, workspace, kind, source, tags, time) and boosts (pinned, rating) a document by. */
/** A document's fields with its number in the keyword index (documents.doc_no; null until keyword-indexed). */
export type NumberedFields = DocumentFields & { doc_no: number | null }

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
 * occurred_at as DocumentFields holds it. The SQL function the cached indexes catch up through (index_changes_since)
 * computes the same expression. Rounded down, so with whole-millisecond bounds (TimeRange)
 * a cached index's comparison and SQL's on the microsecond column agree: floor(x) ≥ a ⇔ x ≥ a, floor(x) < b ⇔ x < b.
 */
export const OCCURRED_MS = sql.raw('floor(extract(epoch from occurred_at) * 1000)::float8')

/**
 * The documents columns an index cache holds of each document (DocumentFields besides id: all of them, checked
 * below), which the loaders read: a change of any of them must move keyword_stats.version, so the trigger of
 * db/functions/keyword-stats.sql fires on exactly these (and on keyword_len and user_id); test/db/functions.test.ts
 * holds the two lists together.
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

const everyField: [Exclude<keyof DocumentFields, 'id' | (typeof DOCUMENT_FIELD_COLUMNS)[number]>] extends [never] ? true : false = true
void everyField

const FIELDS_SELECT = sql.join(
  [
    sql`id`,
    ...DOCUMENT_FIELD_COLUMNS.map((column) => (column === 'occurred_at' ? sql`${OCCURRED_MS} as occurred_at` : sql.identifier(column))),
  ],
  sql`, `,
)

/**
 * What a search restricts to: active documents (`status = 'active'`) of the user passing these, when they
 * happened (`after`, `before`: TimeRange) among them. The one filter every ranking takes, cached or SQL.
 */
export interface DocumentFilter extends TimeRange {
  workspaceId?: string
  kind?: string
  source?: string
  tag?: string
  excludeDocument?: string
  /** Only this document, whatever its status (a more-like-this query scoring its own document); the rest still apply. */
  onlyDocument?: string
}

/** The filter as an SQL condition on the documents table aliased `d`. */
export function filterSql(userId: string, f: DocumentFilter): SQL {
  const parts = [sql`d.user_id = ${userId}`, f.onlyDocument !== undefined ? sql`d.id = ${f.onlyDocument}` : sql`d.status = 'active'`]
  if (f.excludeDocument !== undefined) parts.push(sql`d.id <> ${f.excludeDocument}`)
  if (f.workspaceId !== undefined) parts.push(sql`d.workspace_id = ${f.workspaceId}`)
  if (f.kind !== undefined) parts.push(sql`d.kind = ${f.kind}`)
  if (f.source !== undefined) parts.push(sql`d.source = ${f.source}`)
  if (f.tag !== undefined) parts.push(sql`d.tags @> array[${f.tag}]::text[]`)
  parts.push(...timeConditions(sql`d.occurred_at`, f))
  return sql.join(parts, sql` and `)
}

/** Whether a document that happened at `ms` passes the range: the rule the cached indexes apply. */
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

/** Every document of the user, in id order. */
export async function loadDocumentFields(db: Tx, userId: string): Promise<NumberedFields[]> {
  const docs: NumberedFields[] = []
  for (let after: string | null = null; ; ) {
    const page: NumberedFields[] = await queryRows<NumberedFields>(
      db,
      sql`select ${FIELDS_SELECT}, doc_no from documents
          where user_id = ${userId} ${after !== null ? sql`and id > ${after}` : sql``} order by id limit ${DOCUMENTS_PAGE}`,
    )
    for (const doc of page) doc.occurred_at = Number(doc.occurred_at)
    docs.push(...page)
    if (page.length < DOCUMENTS_PAGE) return docs
    after = page.at(-1)!.id
    await nextTurn()
  }
}
