// Request and response schemas of /api/documents: the contract clients are generated from.
import { t } from 'elysia'
import { ErrorCodeSchema, MAX_QUERY_INTEGER, Page, PageQuery, Text, TimeQuery, Timestamp, Uuid } from '../../http/schemas'
import { KINDS, MESSAGE_KIND, SOURCES, STATUSES } from './documents.model'

type Literal<V extends string> = ReturnType<typeof t.Literal<V>>

// t.Union of literals, not t.UnionEnum: Elysia fills an omitted optional UnionEnum with its first value.
export const literals = <const T extends readonly [string, ...string[]]>(values: T, description?: string) =>
  t.Union(values.map((v) => t.Literal(v)) as [Literal<T[number]>], { description, error: `must be one of ${values.join(', ')}` })

export const KindSchema = literals(KINDS, 'document | note | webpage, or a memory kind: fact | preference | decision | routine | lesson')
/** A kind to list or search by: any kind a document can have, a thread's messages included. */
export const AnyKindSchema = literals(
  [...KINDS, MESSAGE_KIND] as const,
  'document | note | webpage | message, or a memory kind: fact | preference | decision | routine | lesson',
)
export const StatusSchema = literals(STATUSES)
export const SourceSchema = literals(SOURCES)
export const Tags = t.Array(Text({ minLength: 1, maxLength: 64, error: 'each tag must be 1 to 64 characters' }), {
  maxItems: 50,
  error: 'at most 50 tags of 1 to 64 characters',
})
export const Metadata = t.Record(t.String(), t.Unknown(), { description: 'Free-form JSON, at most 16 KiB' })
export const OccurredAt = Text({
  format: 'date-time',
  maxLength: 40,
  description: 'When it happened (ISO 8601 with a time zone); defaults to the time of ingest',
  error: 'occurred_at must be an ISO 8601 date-time with a time zone, such as 2023-05-08T13:56:00Z',
})
export const Title = Text({ minLength: 1, maxLength: 500, error: 'title must be 1 to 500 characters' })

const summaryFields = {
  id: Uuid(),
  workspace_id: Uuid(),
  title: t.String(),
  excerpt: t.String(),
  tags: t.Array(t.String()),
  kind: t.String({ description: 'document | note | webpage | message | fact | preference | decision | routine | lesson' }),
  status: t.String({ description: 'active | pending_approval | archived' }),
  source: t.String({ description: 'api | extension | connector | agent | mcp' }),
  source_ref: t.Nullable(t.String()),
  url: t.Nullable(t.String()),
  pinned: t.Boolean(),
  rating: t.Integer({ enum: [-1, 0, 1], description: '1 rated up, -1 down, 0 not rated' }),
  index_status: t.String({
    description: 'processing (an uploaded file not read yet) | pending (embedding queued) | indexed | failed (see file.error for a file)',
  }),
  size_bytes: t.Integer(),
  occurred_at: t.String({ format: 'date-time', description: 'When what the document records happened (a message: when it was said)' }),
  thread_id: t.Nullable(Uuid('The thread a message belongs to')),
  position: t.Nullable(t.Integer({ description: "A message's place in its thread, from 0" })),
  speaker: t.Nullable(t.String({ description: 'Who said a message: a name, or user | assistant' })),
  created_at: Timestamp,
  updated_at: Timestamp,
}

/** A message said beside another: who, when, and the start of what they said. */
export const Neighbour = t.Object(
  {
    id: Uuid(),
    speaker: t.Nullable(t.String()),
    occurred_at: t.String({ format: 'date-time' }),
    excerpt: t.String(),
  },
  { title: 'Neighbour' },
)

/** The messages said around a thread's message: up to two each side, active ones, in the thread's order. */
export const MessageContext = t.Object(
  {
    before: t.Array(Neighbour, { description: 'The messages said just before it, in order (the nearest last)' }),
    after: t.Array(Neighbour, { description: 'The messages said just after it, in order (the nearest first)' }),
  },
  { title: 'MessageContext', description: "A message's neighbours in its thread (present only for a thread's message)" },
)

export const FileInfo = t.Object(
  {
    name: t.String({ description: "The file's name as sent: sending a file of the same name to the workspace again is a new version" }),
    format: t.String({ description: 'pdf | docx | pptx | xlsx | csv | html | markdown | text, read from its bytes' }),
    content_type: t.String(),
    size_bytes: t.Integer(),
    sha256: t.String(),
    status: t.UnionEnum(['processing', 'done', 'failed'], {
      description: 'processing until its text is read; done; or failed (see error)',
    }),
    error: t.Nullable(
      t.String({ description: 'Why the file could not be read, e.g. "encrypted PDF: remove the password and upload it again"' }),
    ),
    pages: t.Nullable(t.Integer({ description: 'Pages, slides or sheets read' })),
  },
  { title: 'FileInfo' },
)

/** Where a passage was in its document's original file. */
export const Location = t.Object(
  {
    page: t.Optional(t.Integer({ minimum: 1 })),
    slide: t.Optional(t.Integer({ minimum: 1 })),
    sheet: t.Optional(t.String()),
    heading: t.Optional(t.String()),
    label: t.String({ description: '"p. 14", "slide 3", "sheet Sales", or the heading' }),
  },
  { title: 'Location', description: "Where the passage was in the document's original file (only for uploaded files)" },
)

/** Where each part of an uploaded file's text starts in the body, so a reader can open it at a page. */
export const FileSection = t.Object(
  {
    start: t.Integer({ minimum: 0, description: 'Offset in the body (UTF-16 code units, as JavaScript counts them)' }),
    page: t.Optional(t.Integer({ minimum: 1 })),
    slide: t.Optional(t.Integer({ minimum: 1 })),
    sheet: t.Optional(t.String()),
    heading: t.Optional(t.String()),
  },
  { title: 'FileSection' },
)

export const DocumentSummary = t.Object(summaryFields, { title: 'DocumentSummary' })
export const Document = t.Object(
  {
    ...summaryFields,
    body: t.String(),
    metadata: Metadata,
    file: t.Optional(FileInfo),
    sections: t.Optional(
      t.Array(FileSection, {
        description:
          "An uploaded file's text by section (its pages, slides, sheets or headings), ascending by `start`; absent when the body is not a file's text (e.g. edited by hand)",
      }),
    ),
  },
  { title: 'Document' },
)
const notice = t.String({ description: 'Present when the write became a draft pending approval: says so and why' })
export const IngestedDocument = t.Object(
  { ...summaryFields, body: t.String(), metadata: Metadata, deduplicated: t.Boolean(), notice: t.Optional(notice) },
  { title: 'IngestedDocument' },
)
export const DraftedDocument = t.Object({ ...summaryFields, body: t.String(), metadata: Metadata, notice }, { title: 'DraftedDocument' })
/** A document as lists give it: the summary and how many links it has. */
export const ListedDocument = t.Object(
  { ...summaryFields, links: t.Integer({ minimum: 0, description: 'Completed links whose other document is active' }) },
  { title: 'ListedDocument' },
)
export const DocumentPage = Page(ListedDocument, 'DocumentPage')

export const IngestBody = t.Object({
  workspace_id: t.Optional(Uuid('Defaults to the default workspace of the settings')),
  title: t.Optional(Title),
  body: Text({ minLength: 1, error: 'body must be a non-empty string (at most 1 MiB)' }),
  excerpt: t.Optional(Text({ maxLength: 1000 })),
  // Where a text comes from on the web: http(s) only — a javascript: or data: URL is never a source, and a client
  // that renders it as a link would run it.
  url: t.Optional(
    Text({
      format: 'uri',
      pattern: '^[Hh][Tt][Tt][Pp][Ss]?://',
      maxLength: 2048,
      description: 'An absolute http(s) URL',
      error: 'url must be an absolute http(s) URL of at most 2048 characters',
    }),
  ),
  tags: t.Optional(Tags),
  kind: t.Optional(KindSchema),
  source: t.Optional(literals(['api', 'extension', 'mcp'] as const, 'Defaults to extension for cookie callers, api for keys')),
  source_ref: t.Optional(Text({ maxLength: 2048 })),
  pinned: t.Optional(t.Boolean()),
  metadata: t.Optional(Metadata),
  occurred_at: t.Optional(OccurredAt),
})

export const PatchBody = t.Object(
  {
    title: t.Optional(Title),
    excerpt: t.Optional(Text({ maxLength: 1000 })),
    body: t.Optional(Text({ minLength: 1, error: 'body must be a non-empty string (at most 1 MiB)' })),
    tags: t.Optional(Tags),
    pinned: t.Optional(t.Boolean()),
  },
  { minProperties: 1, error: 'give at least one of title, excerpt, body, tags, pinned' },
)

export const ListQuery = t.Object({
  workspace_id: t.Optional(Uuid()),
  tag: t.Optional(Text({ maxLength: 64 })),
  source: t.Optional(SourceSchema),
  kind: t.Optional(AnyKindSchema),
  status: t.Optional(StatusSchema),
  thread_id: t.Optional(Uuid("Only this thread's messages, in their order in it (position) instead of newest first")),
  ...TimeQuery,
  ...PageQuery,
})

export const CheckQuery = t.Object({
  workspace_id: t.Optional(Uuid()),
  size_bytes: t.Optional(
    t.Integer({
      minimum: 0,
      maximum: MAX_QUERY_INTEGER,
      default: 0,
      error: 'size_bytes must be a non-negative integer',
      description: 'UTF-8 bytes of the body',
    }),
  ),
  metadata_bytes: t.Optional(
    t.Integer({
      minimum: 0,
      maximum: MAX_QUERY_INTEGER,
      error: 'metadata_bytes must be a non-negative integer',
      description: 'Bytes of the metadata as JSON',
    }),
  ),
  url: t.Optional(Text({ maxLength: 2048 })),
})

export const CheckResult = t.Object(
  {
    allowed: t.Boolean(),
    reason: t.Optional(t.String()),
    deduplicated: t.Boolean({ description: 'true when the ingest would update an existing document (same URL)' }),
    usage: t.Object({
      documents: t.Object({ used: t.Integer(), limit: t.Nullable(t.Integer({ description: 'null = unlimited' })) }),
      storage_bytes: t.Object({ used: t.Integer(), limit: t.Nullable(t.Integer({ description: 'null = unlimited' })) }),
    }),
  },
  { title: 'IngestCheck' },
)

export const BulkDeleteBody = t.Object({ ids: t.Array(Uuid(), { minItems: 1, maxItems: 100, error: 'ids must be 1 to 100 UUIDs' }) })
export const BulkDeleteResult = t.Object({ deleted: t.Array(t.String()), not_found: t.Array(t.String()) }, { title: 'BulkDeleteResult' })

export const RateBody = t.Object({ rating: t.Union([t.Literal(-1), t.Literal(0), t.Literal(1)], { error: 'rating must be -1, 0 or 1' }) })

/** POST /:id/approve's optional body: merge the draft into an existing memory (approved as its update). */
export const ApproveBody = t.Object({
  supersedes: t.Optional(
    Uuid('An active memory of the same workspace this draft updates: it is archived, and the draft records it in metadata.supersedes'),
  ),
})
/** POST /:id/reject's optional body: the memory this draft repeats. */
export const RejectBody = t.Object({
  duplicate_of: t.Optional(Uuid('An active memory of the same workspace this draft duplicates: recorded in metadata.duplicate_of')),
})

export const LinkBody = t.Object({ target_id: Uuid() })
export const LinkParams = t.Object({ id: Uuid(), targetId: Uuid() })
export const Link = t.Object(
  {
    id: Uuid(),
    source_id: Uuid(),
    target_id: Uuid(),
    score: t.Number(),
    status: t.String({ description: 'pending | completed' }),
    origin: t.String({ description: 'suggested | manual' }),
    created_at: Timestamp,
    document: t.Object({ id: Uuid(), title: t.String(), kind: t.String() }, { description: 'The document at the other end' }),
  },
  { title: 'Link' },
)
export const LinkList = t.Object({ data: t.Array(Link) }, { title: 'LinkList' })

/**
 * An item of a bulk ingest: described as IngestBody, but not checked by the route — each item is checked by
 * bulk.input.ts, so one bad item is that item's own 400 and never fails the batch. (The spread copies
 * IngestBody's JSON Schema for the OpenAPI document; the `Unknown` kind is what the route's validator sees.)
 */
const BulkItem = t.Unknown({ ...IngestBody, description: 'The body of POST /api/documents; an invalid item gets its own 400 in `results`' })

export const BulkIngestBody = t.Object({
  documents: t.Array(BulkItem, { minItems: 1, maxItems: 1000, error: 'documents must be a list of 1 to 1000 documents' }),
})

const Written = t.Object(
  {
    status: t.Union([t.Literal(201), t.Literal(200)], {
      description: '201 created; 200 an existing document (or one earlier in this batch) was updated',
    }),
    document: IngestedDocument,
  },
  { title: 'BulkItemWritten' },
)
const Refused = t.Object(
  {
    status: t.Integer({ description: "The status this item alone would have had: 400, 404 (another user's workspace), 413" }),
    error: t.String(),
    code: ErrorCodeSchema,
  },
  { title: 'BulkItemRefused' },
)

export const BulkIngestResult = t.Object(
  {
    results: t.Array(t.Union([Written, Refused]), { description: 'One per item, in order' }),
    created: t.Integer(),
    deduplicated: t.Integer(),
    failed: t.Integer(),
  },
  { title: 'BulkIngestResult' },
)
