// Request and response schemas of /api/workspaces.
import { t } from 'elysia'
import { Page, PageQuery, Timestamp, Uuid, Text } from '../../http/schemas'
import { MessageContext } from '../documents/documents.schemas'

export const Workspace = t.Object(
  {
    id: Uuid(),
    name: t.String(),
    description: t.Nullable(t.String()),
    document_count: t.Integer({ description: 'Active documents' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'Workspace' },
)
export const WorkspacePage = Page(Workspace, 'WorkspacePage')
export const WorkspaceListQuery = t.Object(PageQuery)

const Name = Text({ minLength: 1, maxLength: 100, pattern: '\\S', error: 'name must be 1 to 100 characters, not only spaces' })
const Description = t.Nullable(Text({ maxLength: 1000 }))

export const CreateWorkspaceBody = t.Object({ name: Name, description: t.Optional(Description) })
export const UpdateWorkspaceBody = t.Object(
  { name: t.Optional(Name), description: t.Optional(Description) },
  { minProperties: 1, error: 'give name or description' },
)

const ContextItem = t.Object({
  id: Uuid(),
  kind: t.String(),
  title: t.String(),
  excerpt: t.String({ description: 'A summary; a thread\'s message quoted as "<speaker>, <date>: <text>"' }),
  tags: t.Array(t.String()),
  updated_at: Timestamp,
  speaker: t.Optional(t.Nullable(t.String({ description: "A thread's message: who said it" }))),
  occurred_at: t.Optional(t.String({ format: 'date-time', description: "A thread's message: when it was said" })),
  context: t.Optional(MessageContext),
})

export const ContextQuery = t.Object({
  max_tokens: t.Optional(t.Integer({ minimum: 50, maximum: 200_000, error: 'max_tokens must be an integer from 50 to 200000' })),
})

export const ContextPack = t.Object(
  {
    workspace: t.Object({ id: Uuid(), name: t.String(), description: t.Nullable(t.String()) }),
    pinned: t.Array(ContextItem),
    routines: t.Array(ContextItem),
    topic_facts: t.Array(t.Object({ topic: t.String(), facts: t.Array(ContextItem) })),
    recent: t.Array(ContextItem),
    stats: t.Object({
      documents: t.Integer(),
      memories: t.Integer(),
      pending_drafts: t.Integer(),
      links: t.Integer(),
      last_updated: t.Nullable(Timestamp),
    }),
    truncated: t.Boolean({ description: 'true when max_tokens left items out' }),
  },
  { title: 'ContextPack' },
)
