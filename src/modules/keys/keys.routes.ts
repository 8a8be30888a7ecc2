// /api/keys: list, create (full key shown once; capped per plan; scopes chosen), revoke (effective at once, with
// the keys it minted). A person signed in also sees and disconnects MCP clients connected by OAuth (kind "oauth");
// a key reaches these routes only with the `keys` scope, and then only itself and the keys it minted.
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
    .get('', async ({ principal }) => ({ data: await listKeys(deps, principal) }), {
      auth: true,
      response: { 200: KeyList, ...errors(401) },
      detail: {
        tags,
        summary:
          'List API keys (prefixes only; the full key is never shown again) and the MCP clients connected by OAuth (kind oauth). ' +
          'With a key (scope keys): only itself and the keys it minted',
      },
    })
    .post(
      '',
      async ({ principal, body, set }) => {
        const key = await createKey(deps, principal, { label: body?.label?.trim() || null, scopes: body?.scopes })
        return created(set, `/api/keys/${key.id}`, key)
      },
      {
        auth: true,
        body: t.Optional(CreateKeyBody),
        response: { 201: CreatedApiKey, ...errors(400, 401, 402, 403) },
        detail: {
          tags,
          summary:
            'Create an API key with its scopes (default read and write); the response carries the full key once (402 at the plan cap; ' +
            '403 when a key asks for a scope it lacks itself)',
        },
      },
    )
    .delete(
      '/:id',
      async ({ principal, params, set }) => {
        await revokeKey(deps, principal, params.id)
        set.status = 204
      },
      {
        auth: true,
        params: IdParams,
        response: { 204: NoContent, ...errors(400, 401, 403, 404) },
        detail: {
          tags,
          summary:
            'Revoke a key and the keys it minted, or disconnect an MCP client (kind oauth: all its tokens); the next request with ' +
            'them gets 401',
        },
      },
    )
}
