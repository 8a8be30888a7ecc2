// The values the API's document filters take (docs/decisions.md#kinds, #statuses), for selects.
export const KINDS = ['document', 'note', 'webpage', 'fact', 'preference', 'decision', 'routine', 'lesson'] as const
/** What lists and search filter by: the kinds above, and messages of conversations (sent to /api/threads, never made here). */
export const FILTER_KINDS = [...KINDS, 'message'] as const
export const SOURCES = ['api', 'extension', 'connector', 'agent', 'mcp'] as const
export const STATUSES = ['active', 'pending_approval', 'archived'] as const

export type Kind = (typeof KINDS)[number]
export type Source = (typeof SOURCES)[number]
export type Status = (typeof STATUSES)[number]

/** `value` when it is one of `values`, else undefined (a hand-edited URL never reaches the API as garbage). */
export const oneOf = <T extends string>(values: readonly T[], value: string | null | undefined): T | undefined =>
  values.includes(value as T) ? (value as T) : undefined
