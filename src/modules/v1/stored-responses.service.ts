// Stored /v1 responses read back and deleted, in OpenAI's shapes: the response object, `{ id, deleted }`, and
// the list of a response's own input items (not its conversation's), paged by `after` in either order.
// A response belongs to the user, not the key: every key of that user reaches it, as previous_response_id does.
import { RAG_MODEL } from '../../ai/models'
import type { Db } from '../../../db/client'
import { notFound } from '../../http/errors'
import type { ResponseObject } from './responses.schemas'
import { deleteResponse, findResponse, type Item, type StoredResponse } from './responses.store'

const missing = (id: string) => notFound(`response ${id} not found`)

/** A response stored before the whole object was kept: what its columns still say. */
const rebuilt = (row: StoredResponse) => ({
  id: row.id,
  object: 'response',
  created_at: Math.floor(row.created_at.getTime() / 1000),
  status: 'completed',
  error: null,
  incomplete_details: null,
  instructions: null,
  max_output_tokens: null,
  model: RAG_MODEL,
  previous_response_id: row.previous_response_id,
  store: true,
  usage: null,
  citations: [],
})

export async function getStoredResponse(db: Db, userId: string, id: string) {
  const row = await findResponse(db, userId, id)
  if (!row) throw missing(id)
  // Kept as it was answered (responses.service.ts), so it is that object again.
  return { ...(row.response ?? rebuilt(row)), output: row.output } as typeof ResponseObject.static
}

export async function deleteStoredResponse(db: Db, userId: string, id: string) {
  if (!(await deleteResponse(db, userId, id))) throw missing(id)
  return { id, object: 'response' as const, deleted: true as const }
}

/** An input item as OpenAI lists it: a message's text content as parts, every item with an id and a type. */
function listed(item: Item, index: number): Item & { id: string; type: string } {
  const type = typeof item.type === 'string' ? item.type : 'message'
  const id = typeof item.id === 'string' ? item.id : `item_${index}`
  if (type !== 'message') return { ...item, id, type }
  const part = item.role === 'assistant' ? 'output_text' : 'input_text'
  const content = typeof item.content === 'string' ? [{ type: part, text: item.content }] : item.content
  return { ...item, id, type, content, status: item.status ?? 'completed' }
}

export interface InputItemsQuery {
  limit?: number
  order?: 'asc' | 'desc'
  after?: string
}

export async function listInputItems(db: Db, userId: string, id: string, query: InputItemsQuery) {
  const row = await findResponse(db, userId, id)
  if (!row) throw missing(id)
  const items = (row.input as Item[]).map(listed)
  if (query.order !== 'asc') items.reverse()
  let start = 0
  if (query.after !== undefined) {
    const at = items.findIndex((item) => item.id === query.after)
    // An unknown cursor names an object that is not there: a 404, as an unknown response is.
    if (at < 0) throw notFound(`after: response ${id} has no input item ${query.after}`)
    start = at + 1
  }
  const limit = query.limit ?? 20
  const data = items.slice(start, start + limit)
  return {
    object: 'list' as const,
    data,
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
    has_more: start + limit < items.length,
  }
}
