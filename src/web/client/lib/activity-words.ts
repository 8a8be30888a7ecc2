// An activity entry in words, as the Activity screen and a document's history say it: who acted ("You", "key
// agent (mk_live_abcd…)", "MCP client Claude"), what happened ("edited document: title, body"), and whether its
// object can still be opened. Pure, so it is tested without a browser.
import type { components } from '../api/schema'

export type ActivityEntry = components['schemas']['ActivityEntry']
export type Actor = components['schemas']['Actor']

/** Who acted, as a person reads it: the signed-in person is "You"; a key by label and prefix, as the keys list shows it. */
export function describeActor(actor: Actor): string {
  switch (actor.kind) {
    case 'person':
      return 'You'
    case 'key': {
      const prefix = actor.prefix ? ` (${actor.prefix}…)` : ''
      return actor.label ? `key ${actor.label}${prefix}` : `a key${prefix}`
    }
    case 'oauth':
      return actor.label ? `MCP client ${actor.label}` : 'an MCP client'
    case 'connector':
      return actor.label ? `connector ${actor.label}` : 'a connector'
    default:
      return 'the service'
  }
}

/** The way in, as a small tag says it. */
export const SURFACES: Record<Actor['surface'], string> = {
  dashboard: 'dashboard',
  extension: 'extension',
  rest: 'REST API',
  mcp: 'MCP',
  v1: 'OpenAI API',
  agent: 'agent',
  connector: 'connector',
  import: 'import',
  job: 'job',
}

const list = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [])
const withFields = (verb: string, fields: unknown) => {
  const names = list(fields)
  return names.length ? `${verb}: ${names.join(', ')}` : verb
}

/** What happened, in words: the verb and the kind of object, with the fields an edit changed. */
export function describeAction(entry: Pick<ActivityEntry, 'action' | 'object_type' | 'summary'>): string {
  const noun = entry.object_type === 'memory' ? 'memory' : 'document'
  const s = entry.summary ?? {}
  switch (entry.action) {
    case 'document.create':
    case 'memory.create':
      return `added ${noun}`
    case 'document.update':
      return withFields(`edited ${noun}`, s.fields)
    case 'document.archive':
      return `archived ${noun}`
    case 'document.restore':
      return `restored ${noun}`
    case 'document.delete':
      return `deleted ${noun}`
    case 'document.forget':
      return `forgot a ${noun}`
    case 'document.version_restore':
      return typeof s.from_version === 'number' ? `restored version ${s.from_version} of ${noun}` : `restored an earlier version of ${noun}`
    case 'file.upload':
      return s.replaced ? 'replaced a file' : 'uploaded a file'
    case 'memory.draft':
      return 'proposed memory'
    case 'memory.approve':
      return s.merged ? 'approved memory (merged into an earlier one)' : 'approved memory'
    case 'memory.reject':
      return s.duplicate_of ? 'rejected memory as a duplicate' : 'rejected memory'
    case 'memory.supersede':
      return 'replaced memory by a newer one'
    case 'memory.unapprove':
      return 'took back approval of memory'
    case 'link.create':
      return s.accepted_suggestion ? 'accepted a suggested link' : 'linked documents'
    case 'link.delete':
      return 'unlinked documents'
    case 'thread.create':
      return 'started conversation'
    case 'thread.update':
      return withFields('edited conversation', s.fields)
    case 'thread.delete':
      return 'deleted conversation'
    case 'thread.forget':
      return 'forgot a conversation'
    case 'workspace.create':
      return 'created workspace'
    case 'workspace.update':
      return withFields('edited workspace', s.fields)
    case 'workspace.delete':
      return 'deleted workspace'
    case 'key.create':
      return 'created key'
    case 'key.revoke':
      return 'revoked key'
    case 'connector.create':
      return 'added connector'
    case 'connector.update':
      return withFields('changed connector', s.fields)
    case 'connector.delete':
      return 'removed connector'
    case 'connector.sync':
      return 'synced connector'
    case 'settings.update':
      return withFields('changed settings', s.fields)
    case 'profile.update':
      return withFields('changed profile', s.fields)
    case 'account.import':
      return 'imported an archive'
    default:
      return String(entry.action).replace('.', ' ')
  }
}

/** The object's name: a forgotten document has none any more. */
export const objectTitle = (entry: Pick<ActivityEntry, 'title' | 'object_type'>): string | null =>
  entry.title ?? (entry.object_type === 'document' || entry.object_type === 'memory' ? '(forgotten)' : null)

/** The ids of documents deleted or forgotten, as far as `entries` say: those are not linked to. */
export function goneIds(entries: ActivityEntry[]): Set<string> {
  const gone = new Set<string>()
  for (const e of entries)
    if (e.object_id && (e.action === 'document.delete' || e.action === 'document.forget' || e.title === null)) gone.add(e.object_id)
  return gone
}

/** Where the entry's object opens, or null: documents and memories that still exist. */
export function objectHref(entry: ActivityEntry, gone: Set<string>): string | null {
  if (entry.object_type !== 'document' && entry.object_type !== 'memory') return null
  if (!entry.object_id || entry.title === null || gone.has(entry.object_id)) return null
  return `/app/documents/${entry.object_id}`
}

/** The filter choices: action families, and kinds of actor. */
export const FAMILIES = [
  ['', 'Everything'],
  ['document', 'Documents'],
  ['memory', 'Memories'],
  ['file', 'Files'],
  ['link', 'Links'],
  ['thread', 'Conversations'],
  ['workspace', 'Workspaces'],
  ['key', 'Keys'],
  ['connector', 'Connectors'],
  ['settings', 'Settings'],
  ['account', 'Account'],
] as const

export const ACTORS = [
  ['', 'Anyone'],
  ['person', 'You'],
  ['key', 'Keys'],
  ['oauth', 'MCP clients'],
  ['connector', 'Connectors'],
  ['system', 'The service'],
] as const
