// /api/settings: the preferences search and answers read.
import { Elysia } from 'elysia'
import type { Deps } from '../../deps'
import { authPlugin } from '../../http/auth'
import { ifMatched, tagged } from '../../http/etag'
import { errors } from '../../http/schemas'
import { Settings, UpdateSettingsBody } from './account.schemas'
import { getSettings, updateSettings } from './settings.service'

const tags = ['account']

export function settingsRoutes(deps: Deps) {
  return new Elysia({ prefix: '/api' })
    .use(authPlugin(deps))
    .get('/settings', async ({ user, set }) => tagged(set, await getSettings(deps.db, user.id)), {
      auth: true,
      response: { 200: Settings, ...errors(401) },
      detail: { tags, summary: 'Settings: default workspace, search mode, answer style, whether conversations are remembered' },
    })
    .patch(
      '/settings',
      async ({ user, body, set, request }) =>
        tagged(
          set,
          await ifMatched(
            deps,
            user.id,
            request,
            (d) => getSettings(d.db, user.id),
            (d) => updateSettings(d, user, body),
          ),
        ),
      {
        auth: true,
        body: UpdateSettingsBody,
        response: { 200: Settings, ...errors(400, 401, 404, 412) },
        detail: { tags, summary: 'Update settings (an unknown workspace is 404)' },
      },
    )
}
