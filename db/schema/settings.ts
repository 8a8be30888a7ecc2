// Per-user preferences read by search and answers.
import { boolean, pgTable, text, uuid } from 'drizzle-orm/pg-core'
import { timestamps } from './columns'
import { workspaces } from './documents'
import { users } from './users'

export const settings = pgTable('settings', {
  user_id: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  /** Where ingest without workspace_id lands; cleared when that workspace is deleted. */
  default_workspace_id: uuid('default_workspace_id').references(() => workspaces.id, { onDelete: 'set null' }),
  /** hybrid | keyword | semantic */
  search_mode: text('search_mode').notNull().default('hybrid'),
  /** concise | detailed */
  answer_style: text('answer_style').notNull().default('concise'),
  /** Each turn of ask, agent chat and /v1/responses is also kept as messages of a thread (off unless the person turns it on). */
  remember_conversations: boolean('remember_conversations').notNull().default(false),
  updated_at: timestamps.updated_at,
})
