// Request and response schemas of /api/connectors.
import { t } from 'elysia'
import { Timestamp, Uuid, Text } from '../../http/schemas'

const Type = t.Union([t.Literal('confluence'), t.Literal('google_drive'), t.Literal('notion')], {
  error: 'type must be confluence, google_drive or notion',
})
const Label = Text({ minLength: 1, maxLength: 100, error: 'label must be 1 to 100 characters' })
const Ids = (what: string) =>
  t.Array(Text({ minLength: 1, maxLength: 200 }), {
    maxItems: 500,
    error: `${what} must be at most 500 ids`,
    description: `${what}; empty = everything the grant can see`,
  })
const RedirectTo = Text({
  maxLength: 2000,
  description: 'Where the browser lands after the OAuth return (this service or an allowed origin); without it the callback answers JSON',
})

export const ConnectorConfig = t.Object(
  {
    spaces: t.Optional(Ids('confluence space keys')),
    folders: t.Optional(Ids('google_drive folder ids')),
    pages: t.Optional(Ids('notion root page or database ids')),
  },
  {
    additionalProperties: false,
    title: 'ConnectorConfig',
    error: 'config takes spaces (confluence), folders (google_drive) or pages (notion)',
  },
)

export const SyncRun = t.Object(
  {
    id: Uuid(),
    connector_id: Uuid(),
    status: t.String({ description: 'queued | running | succeeded | failed' }),
    added: t.Integer(),
    updated: t.Integer(),
    removed: t.Integer(),
    skipped: t.Integer(),
    error: t.Nullable(t.String()),
    created_at: Timestamp,
    started_at: t.Nullable(Timestamp),
    finished_at: t.Nullable(Timestamp),
  },
  { title: 'SyncRun' },
)

export const Connector = t.Object(
  {
    id: Uuid(),
    type: t.String({ description: 'confluence | google_drive | notion' }),
    label: t.String(),
    status: t.String({ description: 'pending_auth (authorize it) | active' }),
    workspace_id: t.Nullable(Uuid()),
    connection_id: t.Nullable(Uuid()),
    config: ConnectorConfig,
    last_sync_at: t.Nullable(Timestamp),
    last_run: t.Nullable(SyncRun),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'Connector' },
)
export const ConnectorList = t.Object({ data: t.Array(Connector) }, { title: 'ConnectorList' })
export const ProviderList = t.Object(
  {
    data: t.Array(
      t.Object({
        type: Type,
        name: t.String({ description: 'The provider as people call it (Google Drive)' }),
        configured: t.Boolean({
          description: "Whether this server has the provider's OAuth app: false means creating a connector answers 503",
        }),
        setting: t.Array(t.String(), {
          description: 'The environment variables that configure it (set both, then restart the service)',
        }),
      }),
    ),
  },
  { title: 'ConnectorProviderList' },
)
export const ConnectorDetail = t.Object(
  { ...Connector.properties, runs: t.Array(SyncRun, { description: 'The latest runs, newest first' }) },
  { title: 'ConnectorDetail' },
)

/** A record, not an object schema: validation would silently drop an unknown key, and a misspelt selection must be a 400. */
const ConfigBody = t.Record(t.String(), Ids('ids'), {
  description:
    'The sync selection: { spaces: [space keys] } for confluence, { folders: [folder ids] } for google_drive, { pages: [page or database ids] } for notion; empty = everything the grant can see',
  error: 'config must map spaces, folders or pages to at most 500 ids',
})

export const CreateConnectorBody = t.Object({
  type: Type,
  label: t.Optional(Label),
  workspace_id: t.Optional(Uuid('Where synced documents go; the default workspace when absent')),
  config: t.Optional(ConfigBody),
  redirect_to: t.Optional(RedirectTo),
})
export const AuthorizeBody = t.Object({ redirect_to: t.Optional(RedirectTo) })
export const Authorization = t.Object(
  { connector: Connector, authorization_url: t.String({ description: "The provider's consent page; open it in a browser" }) },
  { title: 'ConnectorAuthorization' },
)

export const UpdateConnectorBody = t.Object(
  { label: t.Optional(Label), workspace_id: t.Optional(Uuid()), config: t.Optional(ConfigBody) },
  { minProperties: 1, error: 'give label, workspace_id or config' },
)
export const DeleteConnectorQuery = t.Object({
  delete_documents: t.Optional(t.Boolean({ description: 'Also delete the documents it synced (kept by default)' })),
})

export const Connection = t.Object(
  {
    id: Uuid(),
    provider: t.String({ description: 'confluence | google | notion' }),
    account_name: t.Nullable(t.String()),
    external_account_id: t.Nullable(t.String()),
    scopes: t.Array(t.String()),
    expires_at: t.Nullable(Timestamp),
    connectors: t.Integer({ description: 'Connectors using it' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'Connection' },
)
export const ConnectionList = t.Object({ data: t.Array(Connection) }, { title: 'ConnectionList' })

export const CallbackQuery = t.Object(
  // `state` names the authorization this callback finishes: without it there is nothing to finish.
  {
    code: t.Optional(t.String()),
    state: Text({ minLength: 1, error: 'state is missing from the callback' }),
    error: t.Optional(t.String()),
    error_description: t.Optional(t.String()),
  },
  { additionalProperties: t.Unknown() },
)
export const Connected = t.Object({ connector: Connector, sync_run: t.Nullable(SyncRun) }, { title: 'ConnectorConnected' })

export const SpaceList = t.Object(
  { data: t.Array(t.Object({ id: t.String(), key: t.String(), name: t.String(), selected: t.Boolean() })) },
  { title: 'WikiSpaceList' },
)
export const WikiParams = t.Object({ id: Uuid(), wiki: t.String({ description: 'The wiki type: confluence' }) })
export const Redirect = t.Void({ description: 'Redirect (302) to redirect_to with connector_id and connected=true or error' })
