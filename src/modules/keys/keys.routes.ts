// /api/keys: list, create (full key shown once; capped per plan), revoke (effective at once). The list and
// revocation also cover MCP clients connected by OAuth (kind "oauth").
import { Elysia, t } from 'elysia'
import type { Deps } from '../../deps'
import { authPlugin } from '../../http/auth'
import { created } from '../../http/created'
import { errors, IdParams, NoContent } from '../../http/schemas'
import { CreatedApiKey, CreateKeyBody, KeyList } from './keys.schemas'
import { createKey, listKeys, revokeKey } from './keys.service'

const tags = ['keys']

export function keysRoutes(deps: Deps) {
  return new Elysia({ prefix: '/api/keys' })
    .use(authPlugin(deps))
    .get('', async ({ user }) => ({ data: await listKeys(deps, user) }), {
      auth: true,
      response: { 200: KeyList, ...errors(401) },
      detail: {
        tags,
        summary: 'List API keys (prefixes only; the full key is never shown again) and the MCP clients connected by OAuth (kind oauth)',
      },
    })
    .post(
      '',
      async ({ user, body, set }) => {
        const key = await createKey(deps, user, body?.label?.trim() || null)
        return created(set, `/api/keys/${key.id}`, key)
      },
      {
        auth: true,
        body: t.Optional(CreateKeyBody),
        response: { 201: CreatedApiKey, ...errors(400, 401, 402, 403) },
        detail: { tags, summary: 'Create an API key; the response carries the full key once (402 at the plan cap)' },
      },
    )
    .delete(
      '/:id',
      async ({ user, params, set }) => {
        await revokeKey(deps, user, params.id)
        set.status = 204
      },
      {
        auth: true,
        params: IdParams,
        response: { 204: NoContent, ...errors(400, 401, 403, 404) },
        detail: {
          tags,
          summary: 'Revoke a key, or disconnect an MCP client (kind oauth: all its tokens); the next request with it gets 401',
        },
      },
    )
}
