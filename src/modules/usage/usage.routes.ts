// GET /api/usage: live counters against the plan's limits.
import { Elysia, t } from 'elysia'
import type { Deps } from '../../deps'
import { authPlugin } from '../../http/auth'
import { errors } from '../../http/schemas'
import { PlanName } from '../../plans'
import { getUsage } from './usage.service'

const Counter = t.Object({ used: t.Integer(), limit: t.Nullable(t.Integer({ description: 'null = unlimited' })) })

export const Usage = t.Object(
  {
    plan: PlanName,
    period: t.String({ description: 'Calendar month (UTC) of api_calls, YYYY-MM' }),
    documents: Counter,
    storage_bytes: Counter,
    api_calls: t.Object({ used: t.Integer(), limit: t.Nullable(t.Integer({ description: 'null = unlimited' })) }),
  },
  { title: 'Usage' },
)

export function usageRoutes(deps: Deps) {
  return new Elysia({ prefix: '/api' }).use(authPlugin(deps)).get('/usage', ({ user }) => getUsage(deps, user), {
    auth: true,
    response: { 200: Usage, ...errors(401) },
    detail: { tags: ['account'], summary: 'Documents, storage bytes and API calls this month, each with its plan limit' },
  })
}
