// Request and response schemas of settings, profile, avatar, stats and account deletion.
import { t } from 'elysia'
import { Uuid, Text } from '../../http/schemas'
import { literals } from '../documents/documents.schemas'

export const Settings = t.Object(
  {
    default_workspace_id: t.Nullable(Uuid('Where ingest without workspace_id lands')),
    search_mode: literals(['hybrid', 'keyword', 'semantic'] as const, 'Default mode of GET /api/search'),
    answer_style: literals(['concise', 'detailed'] as const, 'How long answers are'),
    remember_conversations: t.Boolean({
      description:
        'Off by default. When on, each turn of POST /api/ask, POST /api/agent/chat and a stored POST /v1/responses is also kept as ' +
        'two messages (the question as role user, the answer as role assistant, its text without the quoted sources) of a thread ' +
        "tied to that conversation (GET /api/threads), in the conversation's workspace: searchable and forgettable like any " +
        'document, and counted against the plan. A turn that cannot be remembered is still answered.',
    }),
  },
  { title: 'Settings' },
)
export const UpdateSettingsBody = t.Partial(Settings, {
  minProperties: 1,
  error: 'give default_workspace_id, search_mode, answer_style or remember_conversations',
})

export const Profile = t.Object(
  {
    id: Uuid(),
    email: t.String({ description: 'The sign-in email' }),
    email_verified: t.Boolean({
      description:
        'The person proved they receive mail there (a mailed link, GitHub or Google); only then may a provider sign-in be linked by it',
    }),
    pending_email: t.Nullable(t.String({ description: 'A new sign-in email waiting for the link mailed to it; null when none' })),
    identities: t.Array(t.Union([t.Literal('github'), t.Literal('google')]), { description: 'Providers linked for sign-in' }),
    name: t.Nullable(t.String()),
    avatar_url: t.Nullable(t.String()),
  },
  { title: 'Profile' },
)
export const UpdateProfileBody = t.Object(
  {
    name: t.Optional(t.Nullable(Text({ maxLength: 100, error: 'name must be at most 100 characters' }))),
    email: t.Optional(Text({ format: 'email', maxLength: 254, error: 'email must be a valid email address' })),
    current_password: t.Optional(
      Text({ maxLength: 256, description: 'Required with email when the account has a password (a person signed in only)' }),
    ),
  },
  { minProperties: 1, error: 'give name or email' },
)

export const AvatarBody = t.Object({ file: t.File({ description: 'PNG, JPEG, WebP or GIF, at most 1 MiB' }) })

const Counts = t.Record(t.String(), t.Integer())
export const Stats = t.Object(
  {
    documents: t.Object({
      stored: t.Integer({
        description:
          'The document count the dashboard shows everywhere: every stored document whatever its status (active, drafts, archived; memories and conversation messages included), what the plan limits — GET /api/usage documents.used',
      }),
      by_status: t.Object({ active: t.Integer(), pending_approval: t.Integer(), archived: t.Integer() }),
      total: t.Integer({ description: 'Active documents and memories (by_status.active)' }),
      by_kind: Counts,
      by_source: Counts,
      by_workspace: t.Array(t.Object({ workspace_id: Uuid(), name: t.String(), documents: t.Integer() })),
    }),
    memories: t.Integer({ description: 'Active memories (fact, preference, decision, routine, lesson)' }),
    pending_drafts: t.Integer(),
    links: t.Object({ pending: t.Integer(), completed: t.Integer() }),
    conversations: t.Integer(),
    searches: t.Integer(),
    answers: t.Integer(),
  },
  { title: 'Stats' },
)

export const HistoricalQuery = t.Object({
  days: t.Optional(t.Integer({ minimum: 1, maximum: 365, default: 30, error: 'days must be an integer from 1 to 365' })),
})
export const Historical = t.Object(
  {
    days: t.Integer(),
    series: t.Array(
      t.Object({ date: t.String({ format: 'date' }), searches: t.Integer(), answers: t.Integer(), documents_added: t.Integer() }),
    ),
  },
  { title: 'HistoricalStats' },
)

export const DeleteAccountBody = t.Object(
  { confirm: t.Literal('DELETE', { error: 'confirm must be "DELETE"' }) },
  { error: 'body must be { "confirm": "DELETE" }' },
)

export const ImportBody = t.Object({
  file: t.File({
    description:
      'The zip: an archive GET /api/account/export made, or a zipped Markdown folder (an Obsidian vault). Also taken as a bare application/zip body',
  }),
})

const Made = (what: string) =>
  t.Object({
    created: t.Integer({ description: `${what} written` }),
    skipped: t.Integer({ description: `${what} the account already held (a duplicate by ingest's rule): left as they are` }),
  })
export const ImportResult = t.Object(
  {
    format: t.UnionEnum(['archive', 'obsidian'], { description: 'What the zip was read as', default: undefined }),
    workspaces: t.Object({
      created: t.Integer(),
      existing: t.Integer({ description: "The archive's workspaces whose name an account's workspace has: their records went there" }),
    }),
    threads: t.Object({
      created: t.Integer(),
      existing: t.Integer({ description: "Threads whose external_id names one of the account's: their new messages were added to it" }),
    }),
    documents: Made('Documents'),
    memories: t.Object({
      created: t.Integer(),
      skipped: t.Integer(),
      drafted: t.Integer({ description: 'Active memories an API key imported as pending_approval drafts (a person approves them)' }),
    }),
    messages: Made("Threads' messages"),
    links: Made('Links'),
    originals: t.Object({ stored: t.Integer() }),
    settings: t.Object({ applied: t.Boolean() }),
    skipped_entries: t.Integer({ description: "Entries not read: a vault's other files and empty notes, an archive's unknown entries" }),
  },
  { title: 'ImportResult' },
)
