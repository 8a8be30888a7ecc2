// A message (a document of kind message in a thread) as every screen shows and links it: "<speaker> · <time>" in
// the person's locale, opened in its conversation at that message rather than as a lone document.
import { formatDate } from './format'

export interface DocumentLike {
  id: string
  kind: string
  title: string
  thread_id: string | null
  speaker: string | null
  occurred_at: string
  status?: string
}

export const isMessage = (doc: DocumentLike): doc is DocumentLike & { thread_id: string } => doc.kind === 'message' && !!doc.thread_id

/** The server's title names the time in its own zone and format; the reader's locale and zone are used instead. */
export const messageLabel = (doc: Pick<DocumentLike, 'speaker' | 'occurred_at'>) =>
  `${doc.speaker || 'Someone'} · ${formatDate(doc.occurred_at)}`

/** The conversation screen scrolled to, and highlighting, the message `id`. */
export const messageHref = (threadId: string, id: string) => `/app/conversations/${threadId}?message=${encodeURIComponent(id)}`

/** Where a document opens: an active message in its conversation; anything else (an archived message, to restore it) on its own page. */
export const documentHref = (doc: DocumentLike) =>
  isMessage(doc) && (doc.status ?? 'active') === 'active' ? messageHref(doc.thread_id, doc.id) : `/app/documents/${doc.id}`

export const documentLabel = (doc: DocumentLike) => (isMessage(doc) ? messageLabel(doc) : doc.title)
