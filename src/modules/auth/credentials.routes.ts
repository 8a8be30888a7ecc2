// /api/auth/password, /api/auth/password-reset, /api/auth/verify-email, /api/auth/oauth/{provider}/link: credentials a
// person controls — change the password, reset it by mail, verify the sign-in email, link GitHub or Google from
// Settings (the signed-in sessions: sessions.routes.ts). Every route that acts on an account takes a person signed
// in (src/modules/keys/key-scopes.ts keeps keys out).
import { Elysia, t } from 'elysia'
import type { Deps } from '../../deps'
import { assertAllowedOrigin, authPlugin } from '../../http/auth'
import { errors, NoContent, Text } from '../../http/schemas'
import { forbidden, notFound } from '../../http/errors'
import { changePassword, requestPasswordReset, resetPassword, sendVerification, verifyEmail } from './credentials.service'
import { canMail } from './email-links.service'
import { asSignInProvider, startSignIn, stateCookie } from './social-sign-in.service'
import { passwordProblem } from './password-rules'
import { sessionsRoutes } from './sessions.routes'
import { getUser } from './auth.service'

const tags = ['auth']

const NewPassword = Text({ minLength: 8, maxLength: 256, error: 'new_password must be 8 to 256 characters' })
const ChangePasswordBody = t.Object({
  current_password: t.Optional(Text({ maxLength: 256, description: 'Required when the account has a password' })),
  new_password: NewPassword,
})
const ResetRequestBody = t.Object({ email: Text({ format: 'email', maxLength: 254, error: 'email must be a valid email address' }) })
const ResetBody = t.Object({
  token: Text({ minLength: 1, maxLength: 200, description: 'The token of the mailed link' }),
  new_password: NewPassword,
})
const TokenQuery = t.Object({
  token: Text({ minLength: 1, maxLength: 200, error: 'token is missing from the link', description: 'The token of the mailed link' }),
})
const Accepted = t.Object({ status: t.Literal('accepted'), detail: t.String() })
const Redirect = t.Void({ description: 'Redirect (302) with a Location header' })

const ACCEPTED = { status: 'accepted' as const, detail: 'if an account has this address, a link to reset its password is on its way' }

export function credentialsRoutes(deps: Deps) {
  return (
    new Elysia({ prefix: '/api' })
      .use(authPlugin(deps))
      .post(
        '/auth/password',
        async ({ principal, body, set }) => {
          await changePassword(deps, principal, body, passwordProblem)
          set.status = 204
        },
        {
          auth: true,
          body: ChangePasswordBody,
          response: { 204: NoContent, ...errors(400, 401, 403) },
          detail: {
            tags,
            summary:
              'Change the password (a person signed in, with current_password; an account without one sets its first within 10 minutes of ' +
              'signing in). Every other session ends',
          },
        },
      )
      .post(
        '/auth/password-reset',
        async ({ body, request, set }) => {
          assertAllowedOrigin(deps, request, false)
          await requestPasswordReset(deps, body.email)
          set.status = 202
          return ACCEPTED
        },
        {
          body: ResetRequestBody,
          response: { 202: Accepted, ...errors(400, 403, 503) },
          detail: {
            tags,
            summary:
              'Mail a password reset link (the same answer whether or not an account has the address; 503 when this server has no SMTP_URL: ' +
              'its administrator resets passwords with `bun run admin reset-password`)',
          },
        },
      )
      .post(
        '/auth/password-reset/confirm',
        async ({ body, request, set }) => {
          assertAllowedOrigin(deps, request, false)
          await resetPassword(deps, body, passwordProblem)
          set.status = 204
        },
        {
          body: ResetBody,
          response: { 204: NoContent, ...errors(400, 403) },
          detail: {
            tags,
            summary: "Set a new password with a reset link's token; every session of the account ends, and the address counts as verified",
          },
        },
      )
      .get(
        '/auth/verify-email',
        async ({ query, set }) => {
          await verifyEmail(deps, query.token)
          set.headers.location = `${deps.config.baseUrl}/app/profile?email=verified`
          set.status = 302
        },
        {
          query: TokenQuery,
          response: { 302: Redirect, ...errors(400, 409) },
          detail: {
            tags,
            summary:
              'Open a verification link: the address is verified (and becomes the sign-in email if it was a change); redirects to the profile',
          },
        },
      )
      .post(
        '/auth/verify-email',
        async ({ user, set }) => {
          const account = await getUser(deps, user.id)
          if (account.email_verified_at) throw forbidden('the sign-in email is verified already')
          if (!canMail(deps))
            throw notFound('this server sends no mail (SMTP_URL): its administrator verifies addresses with `bun run admin verify-email`')
          await sendVerification(deps, account.id, account.email)
          set.status = 202
          return { status: 'accepted' as const, detail: `a verification link is on its way to ${account.email}` }
        },
        {
          auth: true,
          response: { 202: Accepted, ...errors(401, 403, 404) },
          detail: { tags, summary: 'Mail a link that verifies the sign-in email (at most 3 an hour)' },
        },
      )
      // /api/sessions (sessions.routes.ts), registered where those routes always were: the OpenAPI document keeps its order.
      .use(sessionsRoutes(deps))
      .get(
        '/auth/oauth/:provider/link',
        async ({ user, params, query, set }) => {
          const { url, state } = await startSignIn(
            deps,
            asSignInProvider(params.provider),
            query.redirect_to ?? `${deps.config.baseUrl}/app/profile`,
            user.id,
          )
          set.headers['set-cookie'] = stateCookie(deps, state)
          set.headers.location = url
          set.status = 302
        },
        {
          auth: true,
          params: t.Object({ provider: t.String({ description: 'github or google' }) }),
          query: t.Object({ redirect_to: t.Optional(Text({ maxLength: 2000, description: 'Where to land afterwards' })) }),
          response: { 302: Redirect, ...errors(401, 403, 404, 503) },
          detail: { tags, summary: 'Link GitHub or Google to the signed-in account (a person signed in): redirects to the provider' },
        },
      )
  )
}
