// The words of the activity record: what can happen to a person's data (action), to what (object type), and the
// entry as the API shows it.
import type { activity } from '../../../db/schema'

export const ACTIONS = [
  'document.create',
  'document.update',
  'document.archive',
  'document.restore',
  'document.delete',
  'document.forget',
  'document.version_restore',
  'file.upload',
  'memory.create',
  'memory.draft',
  'memory.approve',
  'memory.reject',
  'memory.supersede',
  'memory.unapprove',
  'link.create',
  'link.delete',
  'thread.create',
  'thread.update',
  'thread.delete',
  'thread.forget',
  'workspace.create',
  'workspace.update',
  'workspace.delete',
  'key.create',
  'key.revoke',
  'connector.create',
  'connector.update',
  'connector.delete',
  'connector.sync',
  'settings.update',
  'profile.update',
  'account.import',
] as const

export type Action = (typeof ACTIONS)[number]

export const OBJECT_TYPES = ['document', 'memory', 'link', 'thread', 'workspace', 'key', 'connector', 'settings', 'account'] as const

export type ObjectType = (typeof OBJECT_TYPES)[number]

/** One thing that happened, as a service records it; the actor and the time come from the caller. */
export interface ActivityEntry {
  action: Action
  object_type: ObjectType
  object_id?: string | null
  /** The object's name then (a document's title, a key's label): erased if the document is forgotten. */
  title?: string | null
  workspace_id?: string | null
  /** What changed, without content: field names, statuses, counts, ids. */
  summary?: Record<string, unknown>
}

export type ActivityRow = typeof activity.$inferSelect

export function toActivityDto(row: ActivityRow) {
  return {
    id: row.id,
    at: row.at.toISOString(),
    action: row.action as Action,
    object_type: row.object_type as ObjectType,
    object_id: row.object_id,
    title: row.title,
    workspace_id: row.workspace_id,
    actor: row.actor,
    summary: row.summary,
  }
}
