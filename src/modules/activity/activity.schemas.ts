// Request and response schemas of /api/activity.
import { t } from 'elysia'
import { Page, PageQuery, Text, TimeBound, Timestamp, Uuid } from '../../http/schemas'
import { literals } from '../documents/documents.schemas'
import { ACTIONS, OBJECT_TYPES } from './activity.model'

export const Actor = t.Object(
  {
    kind: literals(
      ['person', 'key', 'oauth', 'connector', 'system'],
      'person: signed in (a session); key: an API key; oauth: an MCP client connected by OAuth; connector; system: the service',
    ),
    surface: literals(
      ['dashboard', 'extension', 'rest', 'mcp', 'v1', 'agent', 'connector', 'import', 'job'],
      'The way in: the dashboard, the extension, the REST API, MCP, the OpenAI-compatible /v1, the agent, a connector sync, an import, a job',
    ),
    id: t.Nullable(Uuid("The key's, OAuth grant's or connector's id")),
    label: t.Nullable(t.String({ description: "The key's label, the MCP client's name, the connector's name, or the job's" })),
    prefix: t.Nullable(t.String({ description: "The key's first 16 characters, as the keys list shows them" })),
  },
  { title: 'Actor', description: 'Who acted: copied at the time, so a revoked key is still named' },
)

export const ActivityEntry = t.Object(
  {
    id: Uuid(),
    at: Timestamp,
    action: literals(ACTIONS),
    object_type: literals(OBJECT_TYPES, 'What kind of object it happened to'),
    object_id: t.Nullable(Uuid()),
    title: t.Nullable(t.String({ description: "The object's name then; null once a document is forgotten" })),
    workspace_id: t.Nullable(Uuid()),
    actor: Actor,
    summary: t.Record(t.String(), t.Unknown(), {
      description: 'What changed, without content: fields, statuses (from, to), counts, related ids',
    }),
  },
  { title: 'ActivityEntry' },
)

export const ActivityPage = Page(ActivityEntry, 'ActivityPage')

export const ActivityQuery = t.Object({
  object_id: t.Optional(Uuid('Only what happened to this object (a document, a key, a workspace…)')),
  object_type: t.Optional(literals(OBJECT_TYPES, 'Only what happened to objects of this type')),
  action: t.Optional(
    Text({
      maxLength: 40,
      pattern: '^[a-z_]+(\\.[a-z_]+)?$',
      error: 'action must be an action (document.update) or a family of them (document)',
      description: 'An action (memory.approve) or a family (memory)',
    }),
  ),
  actor: t.Optional(
    Text({
      maxLength: 36,
      pattern: '^([0-9a-fA-F-]{36}|person|key|oauth|connector|system)$',
      error: "actor must be a key's, grant's or connector's id, or one of person, key, oauth, connector, system",
      description: "A key's (or OAuth grant's, connector's) id, or a kind of actor: person, key, oauth, connector, system",
    }),
  ),
  after: t.Optional(TimeBound('after', 'Only entries at or after this time: inclusive')),
  before: t.Optional(TimeBound('before', 'Only entries before this time: exclusive')),
  ...PageQuery,
})
