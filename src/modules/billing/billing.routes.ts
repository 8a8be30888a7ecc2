// /api/billing (Stripe checkout, portal, verify, sync) and the public, signature-verified POST /webhooks/stripe.
import { Elysia, t } from 'elysia'
import type { Deps } from '../../deps'
import { authPlugin } from '../../http/auth'
import { rawBodyOf } from '../../http/body-limit'
import { errors } from '../../http/schemas'
import { CheckoutBody, CheckoutSession, PortalBody, PortalSession, Subscription, VerifyBody, WebhookReceipt } from './billing.schemas'
import { createCheckout, getSubscription, openPortal, syncSubscription, verifyCheckout } from './billing.service'
import { handleStripeWebhook } from './webhook.service'

const tags = ['billing']

export function billingRoutes(deps: Deps) {
  return new Elysia()
    .use(authPlugin(deps))
    .get('/api/billing/subscription', ({ user }) => getSubscription(deps, user), {
      auth: true,
      response: { 200: Subscription, ...errors(401, 503) },
      detail: { tags, summary: 'The plan, subscription status and period end (503 without Stripe configured)' },
    })
    .post('/api/billing/sync', ({ user }) => syncSubscription(deps, user), {
      auth: true,
      response: { 200: Subscription, ...errors(401, 502, 503) },
      detail: { tags, summary: 'Re-read the subscription from Stripe and apply it' },
    })
    .post('/api/billing/checkout', ({ user, body }) => createCheckout(deps, user, body ?? {}), {
      auth: true,
      body: t.Optional(CheckoutBody),
      response: { 200: CheckoutSession, ...errors(400, 401, 502, 503) },
      detail: { tags, summary: 'Start a Stripe Checkout for the pro plan; answers the hosted page URL' },
    })
    .post('/api/billing/verify', ({ user, body }) => verifyCheckout(deps, user, body.session_id), {
      auth: true,
      body: VerifyBody,
      response: { 200: Subscription, ...errors(400, 401, 404, 409, 502, 503) },
      detail: { tags, summary: 'After the checkout return: read the session from Stripe and apply the subscription' },
    })
    .post('/api/billing/portal', ({ user, body }) => openPortal(deps, user, body ?? {}), {
      auth: true,
      body: t.Optional(PortalBody),
      response: { 200: PortalSession, ...errors(400, 401, 409, 502, 503) },
      detail: { tags, summary: "Open Stripe's customer portal (409 before any checkout)" },
    })
    .post('/api/billing/portal-sync', ({ user }) => syncSubscription(deps, user), {
      auth: true,
      response: { 200: Subscription, ...errors(401, 502, 503) },
      detail: { tags, summary: 'After returning from the portal: re-read the subscription from Stripe' },
    })
    .post('/webhooks/stripe', ({ request }) => handleStripeWebhook(deps, rawBodyOf(request), request.headers.get('stripe-signature')), {
      body: t.Unknown({ description: 'A Stripe event, verified by its Stripe-Signature header over the exact bytes' }),
      response: { 200: WebhookReceipt, ...errors(400, 502, 503) },
      detail: { tags, summary: 'Stripe webhook (public; Stripe-Signature verified, 5-minute tolerance, idempotent per event id)' },
    })
}
