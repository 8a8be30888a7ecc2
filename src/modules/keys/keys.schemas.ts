// Request and response schemas of /api/keys.
import { t } from 'elysia'
import { Timestamp, Uuid } from '../../http/schemas'
import { PlanName } from '../../plans'

export const ApiKey = t.Object(
  {
    id: Uuid(),
    prefix: t.String({ description: 'The first 16 characters of the key, for identification' }),
    label: t.Nullable(t.String()),
    tier: PlanName,
    created_at: Timestamp,
    last_used_at: t.Nullable(Timestamp),
  },
  { title: 'ApiKey' },
)

export const CreatedApiKey = t.Composite([ApiKey, t.Object({ key: t.String({ description: 'The full key, returned this once only' }) })], { title: 'CreatedApiKey' })

export const CreateKeyBody = t.Object({ label: t.Optional(t.Nullable(t.String({ maxLength: 100 }))) })

export const KeyList = t.Object({ data: t.Array(ApiKey) }, { title: 'ApiKeyList' })
