// Responses made by POST /v1/responses, stored (as OpenAI stores them unless `store: false`) so that a later
// request can continue one by `previous_response_id` or point at one of its output items by `item_reference`.
import { sql } from 'drizzle-orm'
import { index, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core'
import { ts } from './columns'
import { threads } from './documents'
import { users } from './users'

export const v1Responses = pgTable(
  'v1_responses',
  {
    /** `resp_<32 hex>`, OpenAI's shape; never shared across users (every read filters by user_id). */
    id: text('id').primaryKey(),
    user_id: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The response this one continues; the conversation is the chain of each response's input and output. */
    previous_response_id: text('previous_response_id'),
    /** This turn's input items only (not the history), in the Responses item format. */
    input: jsonb('input').$type<unknown[]>().notNull(),
    /** The output items (messages with their annotations, function calls). */
    output: jsonb('output').$type<unknown[]>().notNull(),
    /** The response object as it was answered, but for `output` (above): what GET /v1/responses/{id} returns.
     * Null for responses stored before it was kept; those are rebuilt from the columns. */
    response: jsonb('response').$type<Record<string, unknown>>(),
    /** The thread this response's turn was remembered in (remember_conversations): the next response of the chain
     * continues it. Null when not remembered, or once that thread is deleted. */
    thread_id: uuid('thread_id').references(() => threads.id, { onDelete: 'set null' }),
    created_at: ts('created_at').notNull().default(sql`now()`),
  },
  (t) => [index('v1_responses_user_idx').on(t.user_id, t.created_at)],
)
