// The thread vocabulary (roles, batch and page sizes), a message's title, and the row → API mapping.
import type { threads } from '../../../db/schema'
import { spokenDate } from '../../lib/spoken-date'

export const ROLES = ['user', 'assistant', 'system', 'tool'] as const
/** Messages a request may send: the bulk limit of documents. */
export const MAX_THREAD_BATCH = 1000
export const MAX_THREAD_PAGE = 500

export type ThreadRow = typeof threads.$inferSelect

export interface ThreadCounts {
  message_count: number
  first_occurred_at: Date | null
  last_occurred_at: Date | null
}

const timeFormat = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: 'UTC' })

/** "8 May 2023, 13:56" in UTC: the date words a reader (and a question) uses. */
export const spokenTime = (at: Date) => `${spokenDate(at)}, ${timeFormat.format(at)}`

/** A message's title: who said it and when. */
export const messageTitle = (speaker: string, at: Date) => `${speaker} · ${spokenTime(at)}`

export function toThreadDto(row: ThreadRow, counts: ThreadCounts) {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    title: row.title,
    external_id: row.external_id,
    conversation_id: row.conversation_id,
    metadata: row.metadata,
    message_count: counts.message_count,
    first_occurred_at: counts.first_occurred_at?.toISOString() ?? null,
    last_occurred_at: counts.last_occurred_at?.toISOString() ?? null,
    extracted_through: row.extracted_through,
    extraction: (row.extraction ?? null) as { status: string; at: string; proposed?: number; error?: string } | null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  }
}
export type ThreadDto = ReturnType<typeof toThreadDto>
