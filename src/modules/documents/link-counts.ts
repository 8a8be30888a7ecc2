// How many completed links each listed document has whose other end is active: the number a list shows beside a
// title (as GET /api/documents/{id}/links would list them, suggestions aside). Two grouped counts, one per end.
import { aliasedTable, and, count, eq, inArray } from 'drizzle-orm'
import type { PgColumn } from 'drizzle-orm/pg-core'
import { documents, links } from '../../../db/schema'
import type { Tx } from '../../../db/client'

export async function countLinks(db: Tx, userId: string, ids: string[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>()
  if (ids.length === 0) return counts
  const other = aliasedTable(documents, 'other')
  const side = (mine: PgColumn, theirs: PgColumn) =>
    db
      .select({ id: mine, n: count() })
      .from(links)
      .innerJoin(other, eq(other.id, theirs))
      .where(and(eq(links.user_id, userId), eq(links.status, 'completed'), inArray(mine, ids), eq(other.status, 'active')))
      .groupBy(mine)
  for (const rows of await Promise.all([side(links.source_id, links.target_id), side(links.target_id, links.source_id)]))
    for (const { id, n } of rows) counts.set(id as string, (counts.get(id as string) ?? 0) + Number(n))
  return counts
}
