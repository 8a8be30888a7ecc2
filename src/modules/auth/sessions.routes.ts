// /api/sessions: the account's signed-in sessions, and ending them (one, or all: sign out everywhere). A person
// signed in only (src/modules/keys/key-scopes.ts keeps keys out). Mounted by credentials.routes.ts, under its /api,
// where these routes always were: the OpenAPI document keeps its order.
import { Elysia, t } from 'elysia'
import type { Deps } from '../../deps'
import { authPlugin } from '../../http/auth'
import { notFound } from '../../http/errors'
import { errors, NoContent, Text } from '../../http/schemas'
import { endAllSessions, endSession, listSessions, sessionCookie } from './sessions.service'

const tags = ['auth']

const Session = t.Object(
  {
    id: t.String({ description: 'Names the session to end it (DELETE /api/sessions/{id}); not a credential' }),
    created_at: t.String({ format: 'date-time', description: 'When it signed in' }),
    expires_at: t.String({ format: 'date-time' }),
    user_agent: t.Nullable(t.String({ description: 'The browser that signed in' })),
    current: t.Boolean({ description: 'This request came with it' }),
  },
  { title: 'Session' },
)
const SessionList = t.Object({ data: t.Array(Session) }, { title: 'SessionList' })
const SessionParams = t.Object({ id: Text({ minLength: 1, maxLength: 128, description: 'The session id, from GET /api/sessions' }) })

export function sessionsRoutes(deps: Deps) {
  return new Elysia({ prefix: '/sessions' })
    .use(authPlugin(deps))
    .get('', async ({ user, principal }) => ({ data: await listSessions(deps, user.id, principal.credentialId) }), {
      auth: true,
      response: { 200: SessionList, ...errors(401, 403) },
      detail: { tags, summary: 'The signed-in sessions of the account, newest first (a person signed in only)' },
    })
    .delete(
      '',
      async ({ user, set }) => {
        await endAllSessions(deps, user.id)
        set.headers['set-cookie'] = sessionCookie(deps, '', null)
        set.status = 204
      },
      {
        auth: true,
        response: { 204: NoContent, ...errors(401, 403) },
        detail: { tags, summary: 'Sign out everywhere: every session of the account ends, this one included (API keys are not sessions)' },
      },
    )
    .delete(
      '/:id',
      async ({ user, params, set }) => {
        if (!(await endSession(deps, user.id, params.id))) throw notFound(`session ${params.id} not found`)
        set.status = 204
      },
      {
        auth: true,
        params: SessionParams,
        response: { 204: NoContent, ...errors(400, 401, 403, 404) },
        detail: { tags, summary: 'End one session (it is signed out on its next request); an unknown id, or another account’s, is 404' },
      },
    )
}
