// Request and response schemas of /api/keys.
import { t } from 'elysia'
import { Timestamp, Uuid, Text } from '../../http/schemas'
import { PlanName } from '../../plans'
import { KEY_SCOPES, SCOPE_DESCRIPTIONS } from './key-scopes'

const Scope = t.Union([t.Literal('read'), t.Literal('write'), t.Literal('keys')], {
  description: `What a key may do. ${KEY_SCOPES.map((scope) => SCOPE_DESCRIPTIONS[scope]).join('; ')}`,
})

export const ApiKey = t.Object(
  {
    id: Uuid(),
    prefix: t.String({ description: 'The first 16 characters of the key, for identification' }),
    label: t.Nullable(t.String()),
    tier: PlanName,
    created_at: Timestamp,
    last_used_at: t.Nullable(Timestamp),
    kind: t.Union([t.Literal('api_key'), t.Literal('oauth')], {
      description:
        'api_key: a bearer key (POST /api/keys) for every route; oauth: an MCP client connected by OAuth, whose tokens work on /mcp only',
    }),
    client_name: t.Nullable(t.String({ description: "The MCP client's registered name (kind oauth); null for API keys" })),
    scopes: t.Array(Scope, { description: 'What the key may do (an MCP client connected by OAuth: read and write)' }),
    parent_id: t.Nullable(Uuid('The key that minted this one (revoking it revokes this one); null when a person made it')),
  },
  { title: 'ApiKey', description: 'An API key, or an MCP client connected by OAuth (kind oauth: prefix is its client id, label its name)' },
)

export const CreatedApiKey = t.Composite([ApiKey, t.Object({ key: t.String({ description: 'The full key, returned this once only' }) })], {
  title: 'CreatedApiKey',
})

export const CreateKeyBody = t.Object({
  label: t.Optional(t.Nullable(Text({ maxLength: 100 }))),
  scopes: t.Optional(
    t.Array(Scope, {
      minItems: 1,
      uniqueItems: true,
      description: 'Default ["read", "write"]. A key making a key may give it only scopes it holds itself',
    }),
  ),
})

export const KeyList = t.Object({ data: t.Array(ApiKey) }, { title: 'ApiKeyList' })
