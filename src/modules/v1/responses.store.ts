// Stored responses: the conversation behind a `previous_response_id` (the chain of each response's input and
// output items, oldest first) and output items named by `item_reference`. Always the caller's own: another
// user's response or item is "not found", exactly like a missing one.
import { sql } from 'drizzle-orm'
import { queryRows, type Db } from '../../../db/client'
import { v1Responses } from '../../../db/schema'
import { notFound } from '../../http/errors'

export type Item = Record<string, unknown>

/** A chain longer than this is refused rather than walked (each link is one request of one conversation). */
const MAX_CHAIN = 1000

export async function saveResponse(
  db: Db,
  row: { id: string; user_id: string; previous_response_id: string | null; input: Item[]; output: Item[] },
) {
  await db.insert(v1Responses).values(row)
}

/** The items of the conversation that ends with response `id`: every earlier input and output, in order. */
export async function loadConversation(db: Db, userId: string, id: string): Promise<Item[]> {
  const rows = await queryRows<{ input: Item[]; output: Item[]; depth: number }>(
    db,
    sql`with recursive chain as (
          select id, previous_response_id, input, output, 0 as depth from v1_responses where id = ${id} and user_id = ${userId}
          union all
          select r.id, r.previous_response_id, r.input, r.output, c.depth + 1 from v1_responses r
            join chain c on r.id = c.previous_response_id and r.user_id = ${userId}
          where c.depth < ${MAX_CHAIN}
        )
        select input, output, depth from chain order by depth desc`,
  )
  if (rows.length === 0) throw notFound(`previous_response_id: response ${id} not found`)
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
