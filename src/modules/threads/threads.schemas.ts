// Request and response schemas of /api/threads: conversations sent from outside, their messages documents of kind message.
import { t } from 'elysia'
import { ErrorCodeSchema, Page, PageQuery, Text, Timestamp, Uuid } from '../../http/schemas'
import { Document, literals, Metadata, OccurredAt, Tags } from '../documents/documents.schemas'
import { MAX_THREAD_BATCH, MAX_THREAD_PAGE, ROLES } from './threads.model'

const ThreadTitle = Text({ minLength: 1, maxLength: 500, error: 'title must be 1 to 500 characters' })
const ExternalId = Text({
  minLength: 1,
  maxLength: 200,
  error: 'external_id must be 1 to 200 characters',
  description: "The client's id of the conversation: sending it again names the same thread",
})

export const MessageIn = t.Object({
  content: Text({ minLength: 1, pattern: '\\S', error: 'content must be non-empty text (at most 1 MiB)' }),
  speaker: t.Optional(
    Text({
      minLength: 1,
      maxLength: 200,
      pattern: '\\S',
      error: 'speaker must be 1 to 200 characters',
      description: 'Who said it, by name',
    }),
  ),
  role: t.Optional(literals(ROLES, 'The speaker when no name is given: user | assistant | system | tool')),
  occurred_at: t.Optional(OccurredAt),
  position: t.Optional(
    t.Integer({
      minimum: 0,
      maximum: 2_147_483_647,
      error: 'position must be an integer from 0',
      description: "The message's place in the thread; defaults to after the last. The same position again updates that message",
    }),
  ),
  client_id: t.Optional(
    Text({
      minLength: 1,
      maxLength: 200,
      error: 'client_id must be 1 to 200 characters',
      description: "The client's id of the message: sending it again updates that message",
    }),
  ),
  tags: t.Optional(Tags),
  metadata: t.Optional(Metadata),
})

/**
 * The messages of a batch: each is checked on its own (threads.input.ts), so one bad message answers its own 400 and
 * the others are written; the spread copies MessageIn's JSON Schema into the OpenAPI document.
 */
const MessageItem = t.Unknown({ ...MessageIn, description: 'A message; an invalid one gets its own 400 in `results`' })
const Messages = t.Array(MessageItem, {
  minItems: 1,
  maxItems: MAX_THREAD_BATCH,
  error: `messages must be a list of 1 to ${MAX_THREAD_BATCH} messages`,
})

/** Who sends the messages, as on POST /api/documents: the MCP tool add_messages says mcp. */
const MessagesSource = t.Optional(literals(['api', 'extension', 'mcp'] as const, 'Defaults to extension for cookie callers, api for keys'))

export const CreateThreadBody = t.Object({
  workspace_id: t.Optional(Uuid('Defaults to the default workspace of the settings')),
  title: t.Optional(ThreadTitle),
  external_id: t.Optional(ExternalId),
  metadata: t.Optional(Metadata),
  messages: t.Optional(Messages),
  source: MessagesSource,
})
export const AppendBody = t.Object({ messages: Messages, source: MessagesSource })
export const PatchThreadBody = t.Object(
  { title: t.Optional(ThreadTitle), metadata: t.Optional(Metadata) },
  { minProperties: 1, error: 'give at least one of title, metadata' },
)

export const ThreadListQuery = t.Object({ workspace_id: t.Optional(Uuid()), ...PageQuery })
export const MessagesQuery = t.Object({
  from_position: t.Optional(
    t.Integer({
      minimum: 0,
      maximum: 2_147_483_647,
      error: 'from_position must be an integer from 0',
      description: 'The position to start from (the next_position of the previous page); 0 by default',
    }),
  ),
  limit: t.Optional(
    t.Integer({ minimum: 1, maximum: MAX_THREAD_PAGE, default: 100, error: `limit must be an integer from 1 to ${MAX_THREAD_PAGE}` }),
  ),
})

export const Thread = t.Object(
  {
    id: Uuid(),
    workspace_id: Uuid(),
    title: t.String(),
    external_id: t.Nullable(t.String()),
    conversation_id: t.Nullable(Uuid('The ask or agent conversation this thread remembers')),
    metadata: Metadata,
    message_count: t.Integer(),
    first_occurred_at: t.Nullable(Timestamp),
    last_occurred_at: t.Nullable(Timestamp),
    extracted_through: t.Integer({ description: 'The position of the last message learnings were proposed from (-1: none yet)' }),
    extraction: t.Nullable(
      t.Object(
        {
          status: t.String({ description: 'done | failed' }),
          at: Timestamp,
          proposed: t.Optional(t.Integer({ description: 'Drafts it proposed (done)' })),
          skipped: t.Optional(t.Integer({ description: 'Learnings it set aside (done)' })),
          error: t.Optional(t.String({ description: 'Why it failed (failed): extracted_through did not move' })),
        },
        { description: 'The last extraction of learnings from this thread' },
      ),
    ),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'Thread' },
)
export const ThreadPage = Page(Thread, 'ThreadPage')

const Written = t.Object(
  {
    status: t.Union([t.Literal(201), t.Literal(200)], { description: '201 a new message; 200 a message sent again, updated' }),
    document: Document,
  },
  { title: 'MessageWritten' },
)
const Refused = t.Object({ status: t.Integer(), error: t.String(), code: ErrorCodeSchema }, { title: 'MessageRefused' })
export const AppendResult = t.Object(
  {
    results: t.Array(t.Union([Written, Refused]), { description: 'One per message, in order' }),
    created: t.Integer(),
    updated: t.Integer(),
    failed: t.Integer(),
  },
  { title: 'AppendResult' },
)
export const CreatedThread = t.Object(
  { ...Thread.properties, results: t.Optional(AppendResult) },
  { title: 'CreatedThread', description: 'The thread; `results` when messages were sent with it' },
)
export const MessagesPage = t.Object(
  {
    data: t.Array(Document, { description: 'Active messages in thread order' }),
    next_position: t.Nullable(t.Integer({ description: 'from_position of the next page; null on the last' })),
  },
  { title: 'ThreadMessages' },
)

const SkippedLearning = t.Object(
  {
    title: t.Nullable(t.String()),
    body: t.Nullable(t.String()),
    reason: literals(['invalid', 'no_evidence', 'duplicate', 'known', 'too_many'] as const),
    detail: t.String(),
    existing_id: t.Optional(Uuid('The memory or draft it repeats')),
  },
  { title: 'SkippedLearning' },
)
export const Extraction = t.Object(
  {
    thread_id: Uuid(),
    read: t.Integer({ description: 'New messages read' }),
    remaining: t.Boolean({ description: 'More new messages wait than one extraction reads: ask again' }),
    extracted_through: t.Integer({ description: 'The position of the last message read (-1: none yet)' }),
    proposed: t.Array(Document, { description: 'The pending_approval drafts proposed, each citing its messages in metadata.evidence' }),
    skipped: t.Array(SkippedLearning, { description: 'Learnings the model proposed that were set aside, with why' }),
  },
  { title: 'Extraction' },
)
