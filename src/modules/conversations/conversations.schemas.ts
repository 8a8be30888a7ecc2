// Request and response schemas of ask, agent chat, conversations and sources.
import { t } from 'elysia'
import { Page, PageQuery, Timestamp, Uuid, Text } from '../../http/schemas'
import { literals, Location, MessageContext } from '../documents/documents.schemas'

export const Source = t.Object(
  {
    index: t.Integer({ description: 'Answers cite this source as [index]' }),
    document_id: Uuid(),
    title: t.Nullable(t.String()),
    url: t.Nullable(t.String()),
    excerpt: t.Nullable(
      t.String({
        description: 'The quoted passage (a thread\'s message: "<speaker>, <date>: <text>"); null once the document is forgotten',
      }),
    ),
    forgotten: t.Optional(t.Boolean()),
    speaker: t.Optional(t.Nullable(t.String({ description: "A thread's message: who said it" }))),
    occurred_at: t.Optional(t.String({ format: 'date-time', description: "A thread's message: when it was said" })),
    context: t.Optional(MessageContext),
    location: t.Optional(Location),
  },
  { title: 'Source' },
)

export const Message = t.Object(
  {
    id: Uuid(),
    role: t.Union([t.Literal('user'), t.Literal('assistant')]),
    content: t.String(),
    sources: t.Array(Source),
    created_at: Timestamp,
  },
  { title: 'Message' },
)

export const ConversationSummary = t.Object(
  { id: Uuid(), name: t.String(), workspace_id: t.Nullable(Uuid()), created_at: Timestamp, updated_at: Timestamp },
  { title: 'ConversationSummary' },
)
export const Conversation = t.Object(
  {
    id: Uuid(),
    name: t.String(),
    workspace_id: t.Nullable(Uuid()),
    created_at: Timestamp,
    updated_at: Timestamp,
    messages: t.Array(Message),
  },
  { title: 'Conversation' },
)
export const ConversationPage = Page(ConversationSummary, 'ConversationPage')
export const ConversationListQuery = t.Object({ ...PageQuery, workspace_id: t.Optional(Uuid('Only conversations of this workspace')) })

export const UpdateConversationBody = t.Object(
  {
    name: t.Optional(Text({ minLength: 1, maxLength: 200, pattern: '\\S', error: 'name must be 1 to 200 characters, not only spaces' })),
    workspace_id: t.Optional(t.Nullable(Uuid('Scope later questions to this workspace (null: all)'))),
  },
  // anyOf documents the rule (a body naming neither is refused, whatever else it carries); the service enforces it.
  { minProperties: 1, anyOf: [{ required: ['name'] }, { required: ['workspace_id'] }], error: 'give name or workspace_id' },
)

export const SourcesEntry = t.Object(
  {
    message_id: Uuid(),
    conversation_id: Uuid(),
    question: t.Nullable(t.String()),
    created_at: Timestamp,
    sources: t.Array(Source),
    cited: t.Array(t.Integer()),
  },
  { title: 'SourcesEntry' },
)
export const SourcesPage = Page(SourcesEntry, 'SourcesPage')

const Question = Text({ minLength: 1, maxLength: 4000, pattern: '\\S', error: 'must be 1 to 4000 characters, not only spaces' })

const Stream = t.Optional(
  t.Boolean({
    description:
      'false: the whole answer as one JSON object, as `Accept: application/json` asks; by default a stream of server-sent events',
  }),
)

export const AskBody = t.Object({
  question: Question,
  conversation_id: t.Optional(Uuid('Continue this conversation (its history is the context)')),
  workspace_id: t.Optional(Uuid('Retrieve only from this workspace')),
  stream: Stream,
})

export const AgentChatBody = t.Object({
  message: Question,
  conversation_id: t.Optional(Uuid('Continue this conversation')),
  workspace_id: t.Optional(Uuid('Work in this workspace (search scope and where learnings are drafted)')),
  stream: Stream,
})

const AnswerFields = {
  answer: t.String({ description: 'The answer; [n] cites sources[n-1]' }),
  sources: t.Array(Source, { description: 'The sources the answer may cite' }),
  conversation: ConversationSummary,
}

/** POST /api/ask's answer as one object, for clients that cannot read server-sent events. */
export const Answer = t.Object(AnswerFields, {
  title: 'Answer',
  description: 'The whole answer, once saved in `conversation` (pass its id as conversation_id to follow up)',
})

export const ToolStep = t.Object(
  {
    name: t.String({ description: 'The tool the agent called' }),
    status: literals(['call', 'result', 'error']),
    detail: t.Record(t.String(), t.Unknown(), { description: 'Its arguments (call), a digest of its result, or the error' }),
  },
  { title: 'ToolStep' },
)

/** POST /api/agent/chat's answer as one object: the answer and the agent's tool calls and results in order. */
export const AgentAnswer = t.Object(
  { ...AnswerFields, tools: t.Array(ToolStep, { description: 'Each tool call and its result, in order' }) },
  { title: 'AgentAnswer', description: "The agent's whole answer, with the tool calls that led to it" },
)
