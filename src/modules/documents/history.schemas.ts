// Request and response schemas of a document's history: its versions, one version, the supersede chain.
import { t } from 'elysia'
import { Timestamp, Uuid } from '../../http/schemas'
import { Actor } from '../activity/activity.schemas'
import { AnyKindSchema, StatusSchema } from './documents.schemas'

export const VersionParams = t.Object({
  id: Uuid(),
  version: t.Integer({
    minimum: 1,
    maximum: 2_147_483_647,
    error: 'version must be a positive integer',
    description: 'A version number of the document: 1 is the first, the history lists them',
  }),
})

const VersionFields = {
  version: t.Integer({ minimum: 1 }),
  current: t.Boolean({ description: 'Whether this is the document as it is now' }),
  title: t.String(),
  tags: t.Array(t.String()),
  kind: AnyKindSchema,
  status: StatusSchema,
  actor: t.Nullable(Actor),
  at: Timestamp,
}

export const VersionHead = t.Object(
  {
    ...VersionFields,
    changed: t.Array(t.String(), { description: 'What this version changed from the one before it: title, body, tags, kind, status' }),
  },
  { title: 'DocumentVersionHead', description: 'A version of a document, without its body (who made it, when, what changed)' },
)

export const DocumentVersion = t.Object(
  { document_id: Uuid(), ...VersionFields, body: t.String() },
  { title: 'DocumentVersion', description: 'One version of a document, whole' },
)

export const ChainLink = t.Object(
  {
    id: Uuid(),
    title: t.String(),
    status: StatusSchema,
    current: t.Boolean({ description: 'Whether this is the document asked about' }),
    supersedes: t.Nullable(Uuid('The memory this one replaced')),
    approved: t.Nullable(t.Object({ at: Timestamp, actor: Actor }, { description: 'When and by whom it was approved' })),
  },
  { title: 'SupersedeLink' },
)

export const DocumentHistory = t.Object(
  {
    document_id: Uuid(),
    versions: t.Array(VersionHead, { description: 'Newest first; the first is the current version' }),
    chain: t.Array(ChainLink, {
      description: 'A memory: the memories it replaced and those that replaced it, oldest first (empty when it stands alone)',
    }),
    may_unapprove: t.Boolean({ description: 'Whether its approval can be taken back (POST /api/documents/{id}/unapprove)' }),
  },
  { title: 'DocumentHistory' },
)
