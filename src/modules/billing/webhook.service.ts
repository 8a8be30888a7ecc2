// POST /webhooks/stripe: verified by signature over the exact bytes, applied once per event id (a replay
// changes nothing), in one transaction with the record that it was applied.
import { eq } from 'drizzle-orm'
import { processedWebhookEvents, subscriptions } from '../../../db/schema'
import type { Deps } from '../../deps'
import { badRequest, unavailable } from '../../http/errors'
import { applySubscription, stripeOf } from './billing.service'
import type { StripeCheckoutSession, StripeSubscription } from './stripe.client'
import { verifyStripeSignature } from './stripe.webhook'

interface StripeEvent {
  id: string
  type: string
  data: { object: Record<string, unknown> }
}

export const HANDLED = [
  'checkout.session.completed',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'invoice.payment_failed',
]

export async function handleStripeWebhook(deps: Deps, payload: Uint8Array | undefined, signature: string | null) {
  const secret = deps.config.stripe.webhookSecret
  if (!secret) throw unavailable('the Stripe webhook is not configured: set STRIPE_WEBHOOK_SECRET')
  if (!payload) throw badRequest('the webhook body must be JSON')
  const problem = await verifyStripeSignature(signature, payload, secret, Math.floor(deps.clock.now().getTime() / 1000))
  if (problem) throw badRequest(problem)
  let event: StripeEvent
  try {
    event = JSON.parse(new TextDecoder().decode(payload)) as StripeEvent
  } catch {
    throw badRequest('the webhook body is not valid JSON')
  }
  if (typeof event?.id !== 'string' || typeof event.type !== 'string' || !event.data?.object)
    throw badRequest('not a Stripe event: id, type and data.object are required')
  if (!HANDLED.includes(event.type)) return { received: true, handled: false }

  // What the event means, worked out before the transaction (it may need to ask Stripe).
  const change = await changeOf(deps, event)
  const applied = await deps.db.transaction(async (tx) => {
    const [fresh] = await tx
      .insert(processedWebhookEvents)
      .values({ id: event.id, provider: 'stripe', type: event.type })
      .onConflictDoNothing()
      .returning({ id: processedWebhookEvents.id })
    if (!fresh) return false
    if (change) await change(tx)
    return true
  })
  return { received: true, handled: true, ...(applied ? {} : { duplicate: true }) }
}

type Change = ((tx: Parameters<Parameters<Deps['db']['transaction']>[0]>[0]) => Promise<void>) | null

async function userOfCustomer(deps: Deps, customerId: string | null | undefined, metadataUser?: string): Promise<string | null> {
  if (customerId) {
    const [row] = await deps.db
      .select({ user_id: subscriptions.user_id })
      .from(subscriptions)
      .where(eq(subscriptions.stripe_customer_id, customerId))
    if (row) return row.user_id
  }
  return metadataUser ?? null
}

async function changeOf(deps: Deps, event: StripeEvent): Promise<Change> {
  const object = event.data.object
  if (event.type === 'checkout.session.completed') {
    const session = object as unknown as StripeCheckoutSession
    const userId = session.client_reference_id ?? session.metadata?.user_id ?? (await userOfCustomer(deps, session.customer))
    if (!userId || !session.customer || !session.subscription) return ignore(deps, event)
    const sub = typeof session.subscription === 'string' ? await stripeOf(deps).getSubscription(session.subscription) : session.subscription
    return (tx) => applySubscription(deps, tx, userId, session.customer!, sub)
  }
  if (event.type.startsWith('customer.subscription.')) {
    const sent = object as unknown as StripeSubscription
    const userId = await userOfCustomer(deps, sent.customer, sent.metadata?.user_id)
    if (!userId) return ignore(deps, event)
    // Stripe does not promise delivery order: apply the subscription as it is now, not as this event saw it.
    const sub = deps.config.stripe.secretKey
      ? await stripeOf(deps)
          .getSubscription(sent.id)
          .catch(() => sent)
      : sent
    return (tx) =>
      applySubscription(
        deps,
        tx,
        userId,
        sub.customer,
        event.type === 'customer.subscription.deleted' && sub === sent ? { ...sub, status: 'canceled' } : sub,
      )
  }
  // invoice.payment_failed: Stripe retries the charge; the account is past due until it pays or the
  // subscription ends (a later customer.subscription.* event settles the plan).
  const invoice = object as { customer?: string; subscription?: string | null }
  const userId = await userOfCustomer(deps, invoice.customer)
  if (!userId) return ignore(deps, event)
  return async (tx) => {
    await tx.update(subscriptions).set({ status: 'past_due', updated_at: deps.clock.now() }).where(eq(subscriptions.user_id, userId))
  }
}

function ignore(deps: Deps, event: StripeEvent): Change {
  deps.log.warn('stripe event for no known account', { event_id: event.id, type: event.type })
  return null
}
