// /api/profile and /api/avatar: the person's name, sign-in email and avatar (the profile's picture).
import { Elysia, t } from 'elysia'
import type { Deps } from '../../deps'
import { authPlugin } from '../../http/auth'
import { ifMatched, tagged } from '../../http/etag'
import { errors, IdParams } from '../../http/schemas'
import { AvatarBody, Profile, UpdateProfileBody } from './account.schemas'
import { getAvatar, getProfile, setAvatar, updateProfile } from './profile.service'

const tags = ['account']

export function profileRoutes(deps: Deps) {
  return new Elysia({ prefix: '/api' })
    .use(authPlugin(deps))
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
}
