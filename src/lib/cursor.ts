// Opaque list cursors: the last row's id, base64url-encoded so clients never build them by hand.
import { badRequest } from '../http/errors'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

export const encodeCursor = (id: string) => Buffer.from(id, 'utf8').toString('base64url')

export function decodeCursor(cursor: string | undefined): string | null {
  if (!cursor) return null
  const id = Buffer.from(cursor, 'base64url').toString('utf8')
  if (!UUID.test(id)) throw badRequest('cursor is not valid; pass next_cursor from the previous page')
  return id
}

/** Fetch limit + 1 rows; the extra one tells whether another page exists. */
export function toPage<T extends { id: string }>(rows: T[], limit: number): { items: T[]; next_cursor: string | null } {
  const items = rows.slice(0, limit)
  return { items, next_cursor: rows.length > limit ? encodeCursor(items[items.length - 1]!.id) : null }
}
