// What happened to a person's data, and who did it: the append-only activity record, and the earlier versions of
// each document (its current version is the documents row itself).
import { sql } from 'drizzle-orm'
import { index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import type { Actor } from './actor'
import { id, ts } from './columns'
import { documents } from './documents'
import { users } from './users'

/**
 * One row per write. `summary` says what changed without the content (field names, statuses, counts), and
 * `title` names the object as it was then: forgetting a document erases its title from every row about it.
 */
export const activity = pgTable(
  'activity',
  {
    id: id(),
    user_id: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    at: ts('at').notNull().default(sql`now()`),
    /** e.g. document.create, memory.approve, link.create, key.revoke (activity.model.ts lists them). */
    action: text('action').notNull(),
    /** document | memory | link | thread | workspace | key | connector | settings | account */
    object_type: text('object_type').notNull(),
    object_id: uuid('object_id'),
    title: text('title'),
    workspace_id: uuid('workspace_id'),
    actor: jsonb('actor').$type<Actor>().notNull(),
    summary: jsonb('summary').$type<Record<string, unknown>>().notNull().default({}),
  },
  (t) => [
    index('activity_user_idx').on(t.user_id, t.id),
    index('activity_object_idx').on(t.object_id, t.id).where(sql`object_id is not null`),
  ],
)

/**
 * A document as it was before a change of its title, body, tags, kind or status, with who made that version and
 * when — written by a trigger on documents (migration 0044), so no path that changes a document can skip it.
 * `body` is null when the next version has the same one (a status change does not copy the text again).
 * Deleting or forgetting the document deletes its versions.
 */
export const documentVersions = pgTable(
  'document_versions',
  {
    id: id(),
    document_id: uuid('document_id')
      .notNull()
      .references(() => documents.id, { onDelete: 'cascade' }),
    user_id: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    title: text('title').notNull(),
    body: text('body'),
    tags: text('tags').array().notNull(),
    kind: text('kind').notNull(),
    status: text('status').notNull(),
    actor: jsonb('actor').$type<Actor>(),
    /** When this version was made (the document's updated_at then). */
    at: ts('at').notNull(),
  },
  (t) => [uniqueIndex('document_versions_key').on(t.document_id, t.version)],
)
