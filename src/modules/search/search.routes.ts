// GET /api/search: hybrid keyword + semantic search over the caller's documents, rate-limited per plan.
import { Elysia } from 'elysia'
import type { Deps } from '../../deps'
import { authPlugin } from '../../http/auth'
import { enforceRateLimit } from '../../http/rate-limit'
import { errors } from '../../http/schemas'
import { readTimeRange } from '../../lib/time-range'
import { SearchQuery, SearchResponse } from './search.schemas'
import { getSettings } from '../account/settings.service'
import { recordEvent } from '../usage/usage.service'
import { searchDocuments } from './search.service'

export function searchRoutes(deps: Deps) {
  return new Elysia({ prefix: '/api' }).use(authPlugin(deps)).get(
    '/search',
    async ({ user, principal, query, set }) => {
      await enforceRateLimit(deps, principal, 'search_per_min', set.headers)
      // The mode asked for, else the caller's default from settings (read with the credential).
      const mode = query.mode ?? (principal.settings ?? (await getSettings(deps.db, user.id))).search_mode
      const found = await searchDocuments(deps, user, { ...query, mode, time: readTimeRange(query) })
      await recordEvent(deps, user.id, 'search')
      return found
    },
    {
      auth: true,
      query: SearchQuery,
      response: { 200: SearchResponse, ...errors(400, 401, 404, 429) },
      detail: {
        tags: ['search'],
        summary: 'Search: AND matching first, OR to fill, prefix on the last word; results explain their ranks (429 past the plan rate)',
      },
    },
  )
}
