// /oauth/authorize: the authorization endpoint. GET shows the signed-in person a consent page (or sends them to
// the dashboard's sign-in, which returns here), or an error page for an invalid request; POST is that page's
// Allow/Deny form, checked for its origin and for a token bound to the session and the request, and answered
// with a redirect to the client — the only redirect to a client there is.
import { Elysia } from 'elysia'
import type { Deps } from '../../deps'
import { readCookie, SESSION_COOKIE, sessionCookie, validateSession } from '../auth/sessions.service'
import {
  approve,
  checkAuthorizationRequest,
  consentToken,
  denial,
  readAuthorizationParams,
  validConsentToken,
  type AuthorizationParams,
} from './authorize.service'
import { consentPage, errorPage } from './consent.page'

/** The dashboard's sign-in page, which comes back to `next` (a path of this service) once signed in. */
const SIGN_IN = '/app/sign-in'
const hide = { detail: { hide: true } }

export function authorizeRoutes(deps: Deps) {
  /** The session behind the request's cookie (renewed as any cookie request would), or null. */
  async function sessionOf(request: Request, set: { headers: Record<string, unknown> }) {
    const token = readCookie(request.headers.get('cookie'), SESSION_COOKIE)
    const session = token ? await validateSession(deps, token) : null
    if (session?.renewed) set.headers['set-cookie'] = sessionCookie(deps, token!, session.expiresAt)
    return session
  }
  const signIn = (params: AuthorizationParams, status: number) => {
    const back = `/oauth/authorize?${new URLSearchParams(params as Record<string, string>)}`
    return redirect(`${SIGN_IN}?${new URLSearchParams({ next: back })}`, status)
  }

  return new Elysia({ name: 'oauth-authorize' })
    .get(
      '/oauth/authorize',
      async ({ query, request, set }) => {
        const params = readAuthorizationParams(query)
        const checked = await checkAuthorizationRequest(deps, params)
        // Before anything else, the session included: an invalid request never leaves this service (RFC 9700 §4.11.2).
        if (checked.kind === 'refused') return errorPage(400, checked.message)
        const session = await sessionOf(request, set)
        if (!session) return signIn(params, 302)
        return consentPage({
          request: checked.request,
          params,
          email: session.user.email,
          csrf: consentToken(deps, session.sessionId, params),
        })
      },
      hide,
    )
    .post(
      '/oauth/authorize',
      async ({ body, request, set }) => {
        // A form of this service's own page only: never another site's, whatever its cookies (CSRF).
        if (request.headers.get('origin') !== new URL(deps.config.baseUrl).origin)
          return errorPage(403, 'This form can only be sent from the consent page of this service.')
        const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {}
        const params = readAuthorizationParams(fields)
        const session = await sessionOf(request, set)
        if (!session) return signIn(params, 303)
        if (!validConsentToken(deps, session.sessionId, params, typeof fields.csrf_token === 'string' ? fields.csrf_token : undefined)) {
          return errorPage(403, 'The consent form was not issued for this session and request (it may have expired).')
        }
        const checked = await checkAuthorizationRequest(deps, params)
        if (checked.kind === 'refused') return errorPage(400, checked.message)
        if (fields.decision === 'approve') return redirect(await approve(deps, session.user.id, checked.request), 303)
        if (fields.decision === 'deny') return redirect(denial(deps, checked.request), 303)
        return errorPage(400, 'Choose Allow or Deny.')
      },
      hide,
    )
}

function redirect(location: string, status: number): Response {
  return new Response(null, { status, headers: { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' } })
}
