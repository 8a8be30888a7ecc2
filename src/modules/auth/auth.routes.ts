// /api/auth: email + password sign-up and sign-in, sign-out, and who the caller is.
import { Elysia } from 'elysia'
import type { Deps } from '../../deps'
import { assertAllowedOrigin, authPlugin } from '../../http/auth'
import { clientAddress } from '../../http/client-address'
import { created } from '../../http/created'
import { errors, NoContent, Text } from '../../http/schemas'
import { getUser, signIn, signUp, toUserDto } from './auth.service'
import { sendVerification } from './credentials.service'
import { ProvidersResponse, SessionResponse, SignInBody, SignUpBody, UserResponse } from './auth.schemas'
import { asSignInProvider, finishSignIn, SIGN_IN_PROVIDERS, startSignIn, STATE_COOKIE, stateCookie } from './social-sign-in.service'
import { invalidateSession, readCookie, SESSION_COOKIE, sessionCookie } from './sessions.service'
import { t } from 'elysia'

const ProviderParams = t.Object({ provider: t.String({ description: 'github or google' }) })
const StartQuery = t.Object({
  redirect_to: t.Optional(Text({ maxLength: 2000, description: 'Where to land after signing in (this service or an allowed origin)' })),
})
// `state` is what ties a callback to the sign-in this browser started: without it there is nothing to finish.
const CallbackQuery = t.Object(
  {
    code: t.Optional(t.String()),
    state: Text({ minLength: 1, error: 'state is missing from the callback' }),
    error: t.Optional(t.String()),
  },
  { additionalProperties: t.Unknown() },
)
const Redirect = t.Void({ description: 'Redirect (302) with a Location header' })

const tags = ['auth']

const callbackOptions = {
  params: ProviderParams,
  query: CallbackQuery,
  response: { 302: Redirect, ...errors(400, 404, 502, 503) },
  detail: { tags, summary: 'OAuth return: checks the state, exchanges the code, signs in (linking by verified email) and redirects' },
}

async function completeSignIn(
  deps: Deps,
  {
    params,
    query,
    request,
    set,
  }: {
    params: { provider: string }
    query: { code?: string; state: string; error?: string }
    request: Request
    set: { headers: Record<string, unknown>; status?: number | string }
  },
) {
  const { session, redirectTo } = await finishSignIn(
    deps,
    asSignInProvider(params.provider),
    query,
    readCookie(request.headers.get('cookie'), STATE_COOKIE),
    request.headers.get('user-agent'),
  )
  set.headers['set-cookie'] = session
    ? [sessionCookie(deps, session.token, session.expiresAt), stateCookie(deps, '', 0)]
    : [stateCookie(deps, '', 0)]
  set.headers.location = redirectTo
  set.status = 302
}

export function authRoutes(deps: Deps) {
  return new Elysia({ prefix: '/api/auth' })
    .use(authPlugin(deps))
    .post(
      '/sign-up',
      async ({ body, request, set }) => {
        assertAllowedOrigin(deps, request, false)
        const { user, session } = await signUp(deps, body, request.headers.get('user-agent'))
        // With mail configured, the address is proven by the link (until then no provider sign-in is linked by it).
        await sendVerification(deps, user.id, user.email)
        set.headers['set-cookie'] = sessionCookie(deps, session.token, session.expiresAt)
        // The account's own resource is its profile.
        return created(set, '/api/profile', { user: toUserDto(deps, user) })
      },
      {
        body: SignUpBody,
        response: { 201: UserResponse, ...errors(400, 403, 409, 503) },
        detail: {
          tags,
          summary:
            'Create an account and start a session (cookie `session`); 400 for a password that is all spaces, one character repeated, one of the most common passwords or the email itself; 503 with Retry-After while too many passwords are being hashed',
        },
      },
    )
    .post(
      '/sign-in',
      async ({ body, request, server, set }) => {
        assertAllowedOrigin(deps, request, false)
        const { user, session } = await signIn(deps, body, clientAddress(deps.config, request, server), request.headers.get('user-agent'))
        set.headers['set-cookie'] = sessionCookie(deps, session.token, session.expiresAt)
        return { user: toUserDto(deps, user) }
      },
      {
        body: SignInBody,
        response: { 200: UserResponse, ...errors(400, 401, 403, 429, 503) },
        detail: {
          tags,
          summary:
            'Sign in with email and password (sets cookie `session`); 429 with Retry-After after 5 failures for the email or 20 from the address, even for the right password; 503 with Retry-After while too many passwords are being checked',
        },
      },
    )
    .post(
      '/sign-out',
      async ({ request, set }) => {
        const token = readCookie(request.headers.get('cookie'), SESSION_COOKIE)
        if (token) {
          // A cookie write like any other: without an allowed Origin another site could sign the user out.
          assertAllowedOrigin(deps, request)
          await invalidateSession(deps, token)
        }
        set.headers['set-cookie'] = sessionCookie(deps, '', null)
        set.status = 204
      },
      {
        response: { 204: NoContent, ...errors(403) },
        detail: { tags, summary: 'End the current session and clear its cookie (403 without an allowed Origin, as every cookie write)' },
      },
    )
    .get('/providers', () => ({ providers: SIGN_IN_PROVIDERS.filter((provider) => deps.config.oauth[provider] !== null) }), {
      response: { 200: ProvidersResponse },
      detail: {
        tags,
        summary: 'The sign-in providers configured here (GitHub, Google), so a sign-in page shows only the buttons that work',
      },
    })
    .get(
      '/oauth/:provider',
      async ({ params, query, set }) => {
        const { url, state } = await startSignIn(deps, asSignInProvider(params.provider), query.redirect_to)
        set.headers['set-cookie'] = stateCookie(deps, state)
        set.headers.location = url
        set.status = 302
      },
      {
        params: ProviderParams,
        query: StartQuery,
        response: { 302: Redirect, ...errors(400, 404, 503) },
        detail: { tags, summary: "Sign in with GitHub or Google: redirects to the provider's consent page (503 when not configured)" },
      },
    )
    .get('/oauth/:provider/callback', (ctx) => completeSignIn(deps, ctx), callbackOptions)
    .post('/oauth/:provider/callback', (ctx) => completeSignIn(deps, ctx), callbackOptions)
    .get('/session', async ({ user, principal }) => ({ user: toUserDto(deps, await getUser(deps, user.id)), via: principal.via }), {
      auth: true,
      response: { 200: SessionResponse, ...errors(401) },
      detail: { tags, summary: 'The signed-in user (by cookie or key)' },
    })
}
