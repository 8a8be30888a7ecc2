// /api/auth: email + password sign-up and sign-in, sign-out, and who the caller is.
import { Elysia } from 'elysia'
import type { Deps } from '../../deps'
import { assertAllowedOrigin, authPlugin } from '../../http/auth'
import { errors, NoContent } from '../../http/schemas'
import { getUser, signIn, signUp, toUserDto } from './auth.service'
import { SessionResponse, SignInBody, SignUpBody, UserResponse } from './auth.schemas'
import { invalidateSession, readCookie, SESSION_COOKIE, sessionCookie } from './sessions.service'

const tags = ['auth']

export function authRoutes(deps: Deps) {
  return new Elysia({ prefix: '/api/auth' })
    .use(authPlugin(deps))
    .post(
      '/sign-up',
      async ({ body, request, set }) => {
        assertAllowedOrigin(deps, request, false)
        const { user, session } = await signUp(deps, body)
        set.headers['set-cookie'] = sessionCookie(deps, session.token, session.expiresAt)
        set.status = 201
        return { user: toUserDto(deps, user) }
      },
      { body: SignUpBody, response: { 201: UserResponse, ...errors(400, 403, 409) }, detail: { tags, summary: 'Create an account and start a session (cookie `session`)' } },
    )
    .post(
      '/sign-in',
      async ({ body, request, set }) => {
        assertAllowedOrigin(deps, request, false)
        const { user, session } = await signIn(deps, body)
        set.headers['set-cookie'] = sessionCookie(deps, session.token, session.expiresAt)
        return { user: toUserDto(deps, user) }
      },
      { body: SignInBody, response: { 200: UserResponse, ...errors(400, 401, 403) }, detail: { tags, summary: 'Sign in with email and password (sets cookie `session`)' } },
    )
    .post(
      '/sign-out',
      async ({ request, set }) => {
        const token = readCookie(request.headers.get('cookie'), SESSION_COOKIE)
        if (token) {
          assertAllowedOrigin(deps, request, false)
          await invalidateSession(deps, token)
        }
        set.headers['set-cookie'] = sessionCookie(deps, '', null)
        set.status = 204
      },
      { response: { 204: NoContent, ...errors(403) }, detail: { tags, summary: 'End the current session and clear its cookie' } },
    )
    .get(
      '/session',
      async ({ user, principal }) => ({ user: toUserDto(deps, await getUser(deps, user.id)), via: principal.via }),
      { auth: true, response: { 200: SessionResponse, ...errors(401) }, detail: { tags, summary: 'The signed-in user (by cookie or key)' } },
    )
}
