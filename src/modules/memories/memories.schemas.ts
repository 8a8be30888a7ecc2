// Request and response schemas of /api/memories.
import { t } from 'elysia'
import { PageQuery, TimeQuery, Uuid, Text } from '../../http/schemas'
import { MEMORY_KINDS } from '../documents/documents.model'
import { Document, literals, StatusSchema, Tags, Title } from '../documents/documents.schemas'

export const MemoryKind = literals(MEMORY_KINDS)

export const DraftMetadata = t.Object(
  {
    topic: t.Optional(Text({ maxLength: 100, description: 'Groups facts in the workspace context' })),
    confidence: t.Optional(t.Number({ minimum: 0, maximum: 1, error: 'confidence must be a number from 0 to 1' })),
    evidence: t.Optional(Text({ maxLength: 4000, description: 'Why it is believed: a quote, a source' })),
    conversation_id: t.Optional(Text({ maxLength: 100 })),
    supersedes: t.Optional(Uuid('The id of a memory this one replaces; archived when this one is approved')),
  },
  // A schema, not `true`: the app's typebox normalizer drops keys that `additionalProperties: true` lets through.
  { additionalProperties: t.Unknown(), description: 'Unknown keys are kept; at most 16 KiB of JSON' },
)

export const Learning = t.Object({
  kind: MemoryKind,
  title: Title,
  body: Text({ minLength: 1, error: 'body must be a non-empty string (at most 1 MiB)' }),
  tags: t.Optional(Tags),
  metadata: t.Optional(DraftMetadata),
})

export const BatchDraftBody = t.Object({
  workspace_id: Uuid(),
  learnings: t.Array(Learning, { minItems: 1, maxItems: 25, error: 'learnings must be an array of 1 to 25 items' }),
})

export const DraftList = t.Object({ data: t.Array(Document) }, { title: 'DraftList' })

export const MemoryListQuery = t.Object({
  workspace_id: t.Optional(Uuid()),
  kind: t.Optional(MemoryKind),
  status: t.Optional(StatusSchema),
  tag: t.Optional(Text({ maxLength: 64 })),
  ...TimeQuery,
  ...PageQuery,
})
