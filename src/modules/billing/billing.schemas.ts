// Request and response schemas of /api/billing and the Stripe webhook.
import { t } from 'elysia'
import { Timestamp, Text } from '../../http/schemas'
import { PlanName } from '../../plans'

export const Subscription = t.Object(
  {
    plan: PlanName,
    status: t.Union([t.Literal('none'), t.Literal('active'), t.Literal('trialing'), t.Literal('past_due'), t.Literal('canceled')]),
    current_period_end: t.Nullable(Timestamp),
    cancel_at_period_end: t.Boolean(),
    billing_enabled: t.Boolean(),
  },
  { title: 'Subscription' },
)

const ReturnUrl = Text({ format: 'uri', maxLength: 2000, description: "An absolute URL on this service's origin or an allowed one" })
// Stripe puts the session's id into {CHECKOUT_SESSION_ID} of the success URL, so that one is a URI template.
const SuccessUrl = Text({
  format: 'uri-template',
  maxLength: 2000,
  description:
    "An absolute URL on this service's origin or an allowed one; Stripe replaces {CHECKOUT_SESSION_ID} in it with the session's id",
})
export const CheckoutBody = t.Object({ success_url: t.Optional(SuccessUrl), cancel_url: t.Optional(ReturnUrl) })
export const CheckoutSession = t.Object(
  { id: t.String(), url: t.Nullable(t.String({ description: "Stripe's hosted checkout page" })) },
  { title: 'CheckoutSession' },
)
export const VerifyBody = t.Object({ session_id: Text({ minLength: 1, maxLength: 255, error: 'session_id is required' }) })
export const PortalBody = t.Object({ return_url: t.Optional(ReturnUrl) })
export const PortalSession = t.Object({ url: t.String() }, { title: 'PortalSession' })
export const WebhookReceipt = t.Object(
  { received: t.Boolean(), handled: t.Boolean(), duplicate: t.Optional(t.Boolean()) },
  { title: 'WebhookReceipt' },
)
