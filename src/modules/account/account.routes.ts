// /api/settings, /api/profile, /api/avatar, /api/stats and /api/account: the person's own account.
import { Elysia, t } from 'elysia'
import type { Deps } from '../../deps'
import { authPlugin } from '../../http/auth'
import { ifMatched, tagged } from '../../http/etag'
import { errors, IdParams, NoContent } from '../../http/schemas'
import { sessionCookie } from '../auth/sessions.service'
import {
  AvatarBody,
  DeleteAccountBody,
  Historical,
  HistoricalQuery,
  Profile,
  Settings,
  Stats,
  UpdateProfileBody,
  UpdateSettingsBody,
} from './account.schemas'
import { deleteAccount } from './account.service'
import { getAvatar, getProfile, getSettings, setAvatar, updateProfile, updateSettings } from './settings.service'
import { getHistorical, getStats } from './stats.service'

const tags = ['account']

export function accountRoutes(deps: Deps) {
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
    .get('/profile', async ({ user, set }) => tagged(set, await getProfile(deps, user)), {
      auth: true,
      response: { 200: Profile, ...errors(401) },
      detail: { tags, summary: 'Profile: id, email, name, avatar_url' },
    })
    .patch(
      '/profile',
      async ({ user, principal, body, set, request }) =>
        tagged(
          set,
          await ifMatched(
            deps,
            user.id,
            request,
            (d) => getProfile(d, user),
            (d) => updateProfile(d, principal, body),
          ),
        ),
      {
        auth: true,
        body: UpdateProfileBody,
        response: { 200: Profile, ...errors(400, 401, 403, 409, 412, 503) },
        detail: {
          tags,
          summary:
            'Update the name, or the sign-in email: a person signed in only, with current_password (403 with a key or a wrong password; ' +
            '409 when the email belongs to another account). With mail configured the new address takes effect when its mailed link is opened (pending_email)',
        },
      },
    )
    .post('/avatar', ({ user, body }) => setAvatar(deps, user, body.file), {
      auth: true,
      body: AvatarBody,
      type: 'multipart/form-data',
      response: { 200: Profile, ...errors(400, 401, 413, 415) },
      detail: { tags, summary: 'Upload an avatar (multipart field `file`; PNG, JPEG, WebP or GIF by magic bytes; at most 1 MiB)' },
    })
    .get(
      '/avatar/:id',
      async ({ user, params }) => {
        const { bytes, type } = await getAvatar(deps, user, params.id)
        return new Response(new Blob([bytes as Uint8Array<ArrayBuffer>]), {
          headers: { 'content-type': type, 'cache-control': 'private, max-age=86400', 'x-content-type-options': 'nosniff' },
        })
      },
      {
        auth: true,
        params: IdParams,
        response: {
          200: t.Unknown({ description: 'The image bytes, with its own content-type (image/png, image/jpeg, image/webp or image/gif)' }),
          ...errors(400, 401, 404),
        },
        detail: { tags, summary: 'The avatar image (your own; the URL in the profile changes with each upload)' },
      },
    )
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
    .delete(
      '/account',
      async ({ user, set }) => {
        await deleteAccount(deps, user)
        set.headers['set-cookie'] = sessionCookie(deps, '', null)
        set.status = 204
      },
      {
        auth: true,
        body: DeleteAccountBody,
        response: { 204: NoContent, ...errors(400, 401) },
        detail: { tags, summary: 'Delete the account and every row of its data; body { "confirm": "DELETE" }' },
      },
    )
}
