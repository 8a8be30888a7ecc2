// Ask and agent conversations with their message history and the sources each answer used.
import { index, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core'
import { type FileLocation, workspaces } from './documents'
import { id, timestamps } from './columns'
import { users } from './users'

export const conversations = pgTable(
  'conversations',
  {
    id: id(),
    user_id: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** Deleting the workspace deletes its conversations with it. */
    workspace_id: uuid('workspace_id').references(() => workspaces.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    ...timestamps,
  },
  (t) => [index('conversations_user_idx').on(t.user_id, t.updated_at)],
)

/** A message said beside a quoted one: who, when (ISO 8601), and the start of what they said. */
export interface SourceNeighbour {
  id: string
  speaker: string | null
  occurred_at: string
  excerpt: string
}

export interface MessageSource {
  index: number
  document_id: string
  title: string | null
  url: string | null
  /** Quoted text (a thread's message: "<speaker>, <date>: <text>"); removed when the document is forgotten. */
  excerpt: string | null
  /** A thread's message: who said it and when (ISO 8601). */
  speaker?: string | null
  occurred_at?: string
  /** A thread's message: the messages said around it, quoted with it; dropped when one of them is forgotten. */
  context?: { before: SourceNeighbour[]; after: SourceNeighbour[] }
  /** An uploaded file's passage: where it was in the file ("p. 14"). */
  location?: FileLocation & { label: string }
}

export const messages = pgTable(
  'messages',
  {
    id: id(),
    user_id: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    conversation_id: uuid('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    /** user | assistant | tool */
    role: text('role').notNull(),
    content: text('content').notNull(),
    sources: jsonb('sources').$type<MessageSource[]>().notNull().default([]),
    created_at: timestamps.created_at,
  },
  (t) => [index('messages_conversation_idx').on(t.conversation_id, t.id), index('messages_user_idx').on(t.user_id, t.id)],
)
