// Billing: a Stripe subscription moves the account between plans. Checkout and the portal are Stripe's
// hosted pages; the plan changes only on state read from Stripe (verify, sync) or on a verified webhook,
// never on the client's word. An account's plan is its paying subscription's, else DEFAULT_PLAN (plans.ts
// accountPlan): one update of the subscription moves every limit at once.
import { eq } from 'drizzle-orm'
import { accountPlan, asPlan } from '../../plans'
import { subscriptions, users } from '../../../db/schema'
import type { Tx } from '../../../db/client'
import type { Deps } from '../../deps'
import { AppError, badRequest, conflict, notFound, unavailable } from '../../http/errors'
import type { Plan } from '../../config'
import type { SessionUser } from '../auth/sessions.service'
import { createStripeClient, type StripeClient, type StripeSubscription } from './stripe.client'

type SubscriptionRow = typeof subscriptions.$inferSelect
export type SubscriptionStatus = 'none' | 'active' | 'trialing' | 'past_due' | 'canceled'

export function stripeOf(deps: Deps): StripeClient {
  const { secretKey } = deps.config.stripe
  if (!secretKey) throw unavailable('billing is not configured: set STRIPE_SECRET_KEY')
  return createStripeClient({ ...deps.config.stripe, secretKey })
}

const toDto = (deps: Deps, row: SubscriptionRow | undefined, plan: string) => ({
  plan: asPlan(plan),
  status: (row?.status ?? 'none') as SubscriptionStatus,
  current_period_end: row?.current_period_end?.toISOString() ?? null,
  cancel_at_period_end: row?.cancel_at_period_end ?? false,
  billing_enabled: deps.config.stripe.secretKey !== null,
})

export async function getSubscription(deps: Deps, user: SessionUser) {
  stripeOf(deps)
  const [row] = await deps.db.select().from(subscriptions).where(eq(subscriptions.user_id, user.id))
  const [account] = await deps.db
    .select({ plan: accountPlan(deps.config) })
    .from(users)
    .where(eq(users.id, user.id))
  return toDto(deps, row, account?.plan ?? user.plan)
}

/** Stripe's status → ours, and whether it grants the paid plan (past_due keeps it while Stripe retries). */
function planOf(deps: Deps, sub: StripeSubscription | null): { plan: Plan; status: SubscriptionStatus } {
  if (!sub) return { plan: deps.config.defaultPlan, status: 'none' }
  const status: SubscriptionStatus = ['active', 'trialing', 'past_due'].includes(sub.status)
    ? (sub.status as SubscriptionStatus)
    : sub.status === 'incomplete'
      ? 'none'
      : 'canceled'
  const price = deps.config.stripe.pricePro
  const paid = status !== 'none' && status !== 'canceled' && (!price || (sub.items?.data ?? []).some((i) => i.price.id === price))
  return { plan: paid ? 'pro' : deps.config.defaultPlan, status }
}

const periodEndOf = (sub: StripeSubscription | null) => {
  const seconds = sub?.current_period_end ?? sub?.items?.data?.[0]?.current_period_end
  return seconds ? new Date(seconds * 1000) : null
}

/** Records Stripe's view of the user's subscription and moves the plan with it. */
export async function applySubscription(
  deps: Deps,
  tx: Tx,
  userId: string,
  customerId: string,
  sub: StripeSubscription | null,
): Promise<void> {
  // The account may be gone (deleted, its subscription cancelled): nothing to apply, and no error for Stripe.
  const [account] = await tx.select({ id: users.id }).from(users).where(eq(users.id, userId))
  if (!account) {
    deps.log.info('subscription event for a deleted account ignored', { customer: customerId })
    return
  }
  const { plan, status } = planOf(deps, sub)
  const now = deps.clock.now()
  const fields = {
    plan,
    status,
    stripe_customer_id: customerId,
    stripe_subscription_id: sub?.id ?? null,
    current_period_end: periodEndOf(sub),
    cancel_at_period_end: sub?.cancel_at_period_end ?? false,
    updated_at: now,
  }
  await tx
    .insert(subscriptions)
    .values({ user_id: userId, ...fields, created_at: now })
    .onConflictDoUpdate({ target: subscriptions.user_id, set: fields })
  await tx.update(users).set({ plan, updated_at: now }).where(eq(users.id, userId))
  deps.log.info('subscription applied', { user_id: userId, plan, status })
}

/** The subscription Stripe holds for this customer: the live one if any, else the latest. */
async function currentSubscription(stripe: StripeClient, customerId: string): Promise<StripeSubscription | null> {
  const { data } = await stripe.listSubscriptions(customerId)
  return data.find((s) => ['active', 'trialing', 'past_due'].includes(s.status)) ?? data[0] ?? null
}

/** Return URLs must be the service's own or an allowed origin: no open redirect through Stripe. */
function returnUrl(deps: Deps, value: string | undefined, fallback: string, field: string): string {
  if (!value) return fallback
  let origin: string
  try {
    origin = new URL(value).origin
  } catch {
    throw badRequest(`${field} must be an absolute URL`)
  }
  if (!deps.config.allowedOrigins.includes(origin)) throw badRequest(`${field} must be on this service's origin or an allowed one`)
  return value
}

/** One customer creation at a time per user in this process (a double click); the Idempotency-Key covers
 * several processes. */
const creating = new Map<string, Promise<string>>()

function customerOf(deps: Deps, user: SessionUser, stripe: StripeClient): Promise<string> {
  const pending = creating.get(user.id)
  if (pending) return pending
  const created = findOrCreateCustomer(deps, user, stripe).finally(() => creating.delete(user.id))
  creating.set(user.id, created)
  return created
}

async function findOrCreateCustomer(deps: Deps, user: SessionUser, stripe: StripeClient): Promise<string> {
  const [row] = await deps.db.select().from(subscriptions).where(eq(subscriptions.user_id, user.id))
  if (row?.stripe_customer_id) return row.stripe_customer_id
  const customer = await stripe.createCustomer(user.email, user.id)
  const now = deps.clock.now()
  await deps.db
    .insert(subscriptions)
    .values({ user_id: user.id, plan: user.plan, status: 'none', stripe_customer_id: customer.id, created_at: now, updated_at: now })
    .onConflictDoUpdate({ target: subscriptions.user_id, set: { stripe_customer_id: customer.id, updated_at: now } })
  return customer.id
}

export async function createCheckout(deps: Deps, user: SessionUser, input: { success_url?: string; cancel_url?: string }) {
  const stripe = stripeOf(deps)
  const price = deps.config.stripe.pricePro
  if (!price) throw unavailable('billing is not configured: set STRIPE_PRICE_PRO')
  const base = deps.config.baseUrl
  // Checked before anything is created at Stripe.
  const successUrl = returnUrl(deps, input.success_url, `${base}/billing/return?session_id={CHECKOUT_SESSION_ID}`, 'success_url')
  const cancelUrl = returnUrl(deps, input.cancel_url, `${base}/billing/cancelled`, 'cancel_url')
  const session = await stripe.createCheckoutSession({
    customer: await customerOf(deps, user, stripe),
    price,
    userId: user.id,
    successUrl,
    cancelUrl,
  })
  return { id: session.id, url: session.url }
}

/** After the checkout return: reads the session from Stripe (the client's word is not enough). */
export async function verifyCheckout(deps: Deps, user: SessionUser, sessionId: string) {
  const stripe = stripeOf(deps)
  const session = await stripe.getCheckoutSession(sessionId).catch((error) => {
    throw error instanceof AppError && error.status === 404 ? notFound(`checkout session ${sessionId} not found`) : error
  })
  // Another user's session is as missing as an unknown one.
  if ((session.client_reference_id ?? session.metadata?.user_id) !== user.id || !session.customer)
    throw notFound(`checkout session ${sessionId} not found`)
  if (session.status !== 'complete') throw conflict(`checkout session ${sessionId} is not complete (${session.status ?? 'unknown'})`)
  const subscription = typeof session.subscription === 'string' ? await stripe.getSubscription(session.subscription) : session.subscription
  await deps.db.transaction((tx) => applySubscription(deps, tx, user.id, session.customer!, subscription))
  return getSubscription(deps, user)
}

/** Re-reads the subscription from Stripe (after the portal, or whenever the client wants the truth). */
export async function syncSubscription(deps: Deps, user: SessionUser) {
  const stripe = stripeOf(deps)
  const [row] = await deps.db.select().from(subscriptions).where(eq(subscriptions.user_id, user.id))
  if (!row?.stripe_customer_id) return getSubscription(deps, user)
  const subscription = await currentSubscription(stripe, row.stripe_customer_id)
  await deps.db.transaction((tx) => applySubscription(deps, tx, user.id, row.stripe_customer_id!, subscription))
  return getSubscription(deps, user)
}

export async function openPortal(deps: Deps, user: SessionUser, input: { return_url?: string }) {
  const stripe = stripeOf(deps)
  const [row] = await deps.db.select().from(subscriptions).where(eq(subscriptions.user_id, user.id))
  if (!row?.stripe_customer_id) throw conflict('no billing account yet: start a checkout first')
  const session = await stripe.createPortalSession(
    row.stripe_customer_id,
    returnUrl(deps, input.return_url, `${deps.config.baseUrl}/settings`, 'return_url'),
  )
  return { url: session.url }
}

/** On account deletion: stop charging. Best effort when Stripe is down — the account goes either way. */
export async function cancelForDeletion(deps: Deps, userId: string): Promise<void> {
  const [row] = await deps.db.select().from(subscriptions).where(eq(subscriptions.user_id, userId))
  if (!row?.stripe_subscription_id || row.status === 'canceled' || !deps.config.stripe.secretKey) return
  try {
    await stripeOf(deps).cancelSubscription(row.stripe_subscription_id)
  } catch (error) {
    deps.log.error('could not cancel the subscription of a deleted account', { user_id: userId, error: String(error) })
  }
}
