// Stored responses: the conversation behind a `previous_response_id` (the chain of each response's input and
// output items, oldest first), output items named by `item_reference`, and one response read or deleted by id.
// Always the caller's own: another user's response or item is "not found", exactly like a missing one.
import { and, eq, sql } from 'drizzle-orm'
import { queryRows, type Db } from '../../../db/client'
import { v1Responses } from '../../../db/schema'
import { notFound } from '../../http/errors'

export type Item = Record<string, unknown>

/** A chain longer than this is refused rather than walked (each link is one request of one conversation). */
const MAX_CHAIN = 1000

export async function saveResponse(
  db: Db,
  row: {
    id: string
    user_id: string
    previous_response_id: string | null
    input: Item[]
    output: Item[]
    response: Record<string, unknown>
  },
) {
  await db.insert(v1Responses).values(row)
}

export type StoredResponse = typeof v1Responses.$inferSelect

/** The caller's stored response `id`, or null (missing, deleted, another user's, or made with `store: false`). */
export async function findResponse(db: Db, userId: string, id: string): Promise<StoredResponse | null> {
  const [row] = await db
    .select()
    .from(v1Responses)
    .where(and(eq(v1Responses.id, id), eq(v1Responses.user_id, userId)))
  return row ?? null
}

/** Deletes the caller's stored response; false when there was none to delete. */
export async function deleteResponse(db: Db, userId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(v1Responses)
    .where(and(eq(v1Responses.id, id), eq(v1Responses.user_id, userId)))
    .returning({ id: v1Responses.id })
  return rows.length > 0
}

/**
 * The items of the conversation that ends with response `id`: every earlier input and output, in order. A chain
 * with a deleted response in it is refused rather than continued without that part of the conversation.
 */
export async function loadConversation(db: Db, userId: string, id: string): Promise<Item[]> {
  const rows = await queryRows<{ input: Item[]; output: Item[]; depth: number; previous_response_id: string | null }>(
    db,
    sql`with recursive chain as (
          select id, previous_response_id, input, output, 0 as depth from v1_responses where id = ${id} and user_id = ${userId}
          union all
          select r.id, r.previous_response_id, r.input, r.output, c.depth + 1 from v1_responses r
            join chain c on r.id = c.previous_response_id and r.user_id = ${userId}
          where c.depth < ${MAX_CHAIN}
        )
        select input, output, depth, previous_response_id from chain order by depth desc`,
  )
  if (rows.length === 0) throw notFound(`previous_response_id: response ${id} not found`)
  const oldest = rows[0]!
  if (oldest.previous_response_id && oldest.depth < MAX_CHAIN)
    throw notFound(
      `previous_response_id: the conversation of response ${id} continues response ${oldest.previous_response_id}, which was deleted`,
    )
  return rows.flatMap((r) => [...r.input, ...r.output])
}

/** The caller's stored output items with these ids (as `item_reference` names them). */
export async function findItems(db: Db, userId: string, ids: string[]): Promise<Map<string, Item>> {
  const found = new Map<string, Item>()
  if (ids.length === 0) return found
  const rows = await queryRows<{ item: Item }>(
    db,
    // Scans only the caller's responses (by the user index); items are looked up by their id inside each output.
    sql`select item from v1_responses, jsonb_array_elements(output) as item
        where user_id = ${userId} and item->>'id' in (${sql.join(
          ids.map((id) => sql`${id}`),
          sql`, `,
        )})`,
  )
  for (const { item } of rows) found.set(item.id as string, item)
  return found
}
