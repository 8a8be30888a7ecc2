// A conversation's messages read a window at a time (GET /api/threads/{id}/messages pages forward from a position):
// the first window around the message a link points at, then earlier or later pages as the reader scrolls.
import { api, ApiError, unwrap } from '../api/client'
import type { paths } from '../api/schema'

export type Thread = paths['/api/threads/{id}']['get']['responses']['200']['content']['application/json']
export type ThreadPage = paths['/api/threads']['get']['responses']['200']['content']['application/json']
export type ThreadMessage = paths['/api/threads/{id}/messages']['get']['responses']['200']['content']['application/json']['data'][number]

/** Messages per page; LoCoMo's conversations have 400–700, so a long thread is a handful of pages. */
export const PAGE = 100
/** How many messages the first window shows above the one a link points at, so it is read in its context. */
export const LEAD = 20

export interface FirstWindow {
  messages: ThreadMessage[]
  /** The lowest position asked for: anything below it has not been read yet. */
  from: number
  next: number | null
  /** The message the link pointed at, when it is an active message of this thread. */
  target: ThreadMessage | undefined
  /** The link pointed at a message this thread does not show (archived, forgotten, deleted or another thread's). */
  missing: boolean
  /** That message, when it is this thread's but archived: its own page can restore it. */
  archived: string | undefined
}

const positionOf = (m: ThreadMessage) => m.position ?? 0

function messagesFrom(threadId: string, from: number, limit: number, signal?: AbortSignal) {
  return unwrap(
    api.GET('/api/threads/{id}/messages', { params: { path: { id: threadId }, query: { from_position: from, limit } }, signal }),
  )
}

/** The window a thread opens at: from its start, or around the message `targetId`. */
export async function loadFirstWindow(threadId: string, targetId: string | undefined, signal: AbortSignal): Promise<FirstWindow> {
  let from = 0
  let wanted: ThreadMessage | undefined
  let archived: string | undefined
  if (targetId) {
    try {
      const doc = await unwrap(api.GET('/api/documents/{id}', { params: { path: { id: targetId } }, signal }))
      if (doc.thread_id === threadId && doc.status === 'active') {
        wanted = doc
        from = Math.max(0, positionOf(doc) - LEAD)
      } else if (doc.thread_id === threadId && doc.status === 'archived') archived = doc.id
    } catch (error) {
      // A forgotten or deleted message (404), or an id that is not one (400): the thread opens at its start.
      if (!(error instanceof ApiError) || (error.status !== 404 && error.status !== 400)) throw error
    }
  }
  const page = await messagesFrom(threadId, from, PAGE, signal)
  const target = wanted && page.data.find((m) => m.id === wanted!.id)
  return { messages: page.data, from, next: page.next_position, target, missing: !!targetId && !target, archived }
}

/**
 * The messages just before position `before`, in order, and whether any may lie before those. Positions are the
 * client's and may have gaps: the range read is widened until it holds a page of messages or reaches position 0.
 */
export async function loadEarlier(threadId: string, before: number): Promise<{ messages: ThreadMessage[]; more: boolean }> {
  for (let span = PAGE; ; span *= 4) {
    const start = Math.max(0, before - span)
    const found: ThreadMessage[] = []
    // A page holds at most PAGE positions of the range; with gaps it may stop short of `before`, so read on to it.
    for (let from: number | null = start; from !== null && from < before; ) {
      const page = await messagesFrom(threadId, from, PAGE)
      found.push(...page.data.filter((m) => positionOf(m) < before))
      from = page.next_position
    }
    // A page's worth, or all there is: a sparse numbering does not cost a request per message.
    if (found.length >= PAGE || start === 0) return { messages: found, more: start > 0 }
  }
}

export function loadLater(threadId: string, from: number) {
  return messagesFrom(threadId, from, PAGE)
}
