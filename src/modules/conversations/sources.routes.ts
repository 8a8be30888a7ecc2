// /api/sources: recent answers with the sources they were given and the ones they cited.
import { Elysia, t } from 'elysia'
import type { Deps } from '../../deps'
import { authPlugin } from '../../http/auth'
import { errors, PageQuery } from '../../http/schemas'
import { SourcesPage } from './conversations.schemas'
import { listSources } from './conversations.service'

const tags = ['ask']

export function sourcesRoutes(deps: Deps) {
  return new Elysia({ prefix: '/api' }).use(authPlugin(deps)).get('/sources', ({ user, query }) => listSources(deps, user, query), {
    auth: true,
    query: t.Object(PageQuery),
    response: { 200: SourcesPage, ...errors(400, 401) },
    detail: { tags, summary: 'Recent answers with the sources they were given and the ones they cited' },
  })
}
