// Opaque list cursors: the last row's id, its 16 bytes in base64url (22 characters), so clients never build
// them by hand. Lists run in id order, so every well-formed cursor is a position: one from another list, or
// made up, pages from wherever its id falls instead of failing (the document's pattern is the whole rule).
export const CURSOR_PATTERN = '^[A-Za-z0-9_-]{22}$'

export const encodeCursor = (id: string) => Buffer.from(id.replaceAll('-', ''), 'hex').toString('base64url')

export function decodeCursor(cursor: string | undefined): string | null {
  if (!cursor) return null
  // The route's schema has checked the pattern: 22 characters are 132 bits, of which the first 128 are the id.
  const hex = Buffer.from(cursor, 'base64url').subarray(0, 16).toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/** Fetch limit + 1 rows; the extra one tells whether another page exists. */
export function toPage<T extends { id: string }>(rows: T[], limit: number): { items: T[]; next_cursor: string | null } {
  const items = rows.slice(0, limit)
  return { items, next_cursor: rows.length > limit ? encodeCursor(items[items.length - 1]!.id) : null }
}
