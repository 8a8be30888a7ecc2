// /api/stats: what the account holds and how it is used, now and day by day.
import { Elysia } from 'elysia'
import type { Deps } from '../../deps'
import { authPlugin } from '../../http/auth'
import { errors } from '../../http/schemas'
import { Historical, HistoricalQuery, Stats } from './account.schemas'
import { getHistorical, getStats } from './stats.service'

const tags = ['account']

export function statsRoutes(deps: Deps) {
  return new Elysia({ prefix: '/api' })
    .use(authPlugin(deps))
    .get('/stats', ({ user }) => getStats(deps, user), {
      auth: true,
      response: { 200: Stats, ...errors(401) },
      detail: {
        tags,
        summary: 'Statistics: documents by kind, source and workspace; memories; drafts; links; conversations; searches; answers',
      },
    })
    .get('/stats/historical', ({ user, query }) => getHistorical(deps, user, query.days), {
      auth: true,
      query: HistoricalQuery,
      response: { 200: Historical, ...errors(400, 401) },
      detail: { tags, summary: 'A daily series (UTC) of searches, answers and documents added over the last `days` (1–365, default 30)' },
    })
}
