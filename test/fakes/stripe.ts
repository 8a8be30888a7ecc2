// A local stand-in for Stripe's REST API on 127.0.0.1 (Bun.serve, port 0), speaking its documented wire
// format: `Authorization: Bearer sk_test_…`, application/x-www-form-urlencoded bodies with bracketed keys
// (line_items[0][price], metadata[user_id]), JSON objects shaped like Stripe's (customer, checkout.session,
// subscription, billing_portal.session, lists), errors as { error: { type, message, code?, param? } }.
// Test controls: pay a checkout session, change a subscription, fail the next request, stop; every request
// is recorded. signedEvent() signs a webhook body exactly as Stripe does, independently of src/.
import { createHmac, randomBytes } from 'node:crypto'

export interface RecordedStripeRequest {
  method: string
  path: string
  query: Record<string, any>
  headers: Record<string, string>
  /** The form body, parsed with Stripe's bracket notation. */
  body: Record<string, any>
  /** The body exactly as received. */
  raw: string
}

export interface StripeCustomer {
  id: string
  object: 'customer'
  email: string | null
  metadata: Record<string, string>
  created: number
  livemode: false
}

export interface StripeSubscriptionItem {
  id: string
  object: 'subscription_item'
  price: { id: string; object: 'price'; active: true; currency: string; recurring: { interval: string } }
  quantity: number
  current_period_start: number
  current_period_end: number
}

export interface FakeSubscription {
  id: string
  object: 'subscription'
  customer: string
  status: 'incomplete' | 'incomplete_expired' | 'trialing' | 'active' | 'past_due' | 'canceled' | 'unpaid' | 'paused'
  cancel_at_period_end: boolean
  canceled_at: number | null
  ended_at: number | null
  created: number
  items: { object: 'list'; data: StripeSubscriptionItem[]; has_more: false; url: string }
  metadata: Record<string, string>
  livemode: false
}

export interface FakeCheckoutSession {
  id: string
  object: 'checkout.session'
  mode: string
  status: 'open' | 'complete' | 'expired'
  payment_status: 'unpaid' | 'paid' | 'no_payment_required'
  url: string | null
  customer: string | null
  customer_email: string | null
  subscription: string | null
  client_reference_id: string | null
  metadata: Record<string, string>
  success_url: string | null
  cancel_url: string | null
  line_items_requested: { price: string; quantity: number }[]
  subscription_metadata: Record<string, string>
  created: number
  expires_at: number
  livemode: false
}

export interface FakeStripeOptions {
  /** The only secret key accepted; requests with another (or none) get 401. */
  secretKey?: string
  /** Price ids that exist in this account; a checkout for another gets 400 "No such price". */
  prices?: string[]
  /** The clock that stamps `created` and the billing period (give the test's FakeClock). */
  now?: () => Date
  /** Length of a billing period, in seconds (30 days by default). */
  periodSeconds?: number
}

export interface StripeEvent<T = unknown> {
  id: string
  object: 'event'
  api_version: string
  created: number
  type: string
  data: { object: T }
  livemode: false
  pending_webhooks: number
  request: { id: string | null; idempotency_key: string | null }
}

const API_VERSION = '2025-03-31.basil'
const id = (prefix: string) => `${prefix}_test_${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`

/** Stripe's form encoding read back: `a[b][0][c]=v` → { a: { b: [{ c: 'v' }] } } (`a[]` appends). */
export function parseStripeForm(text: string): Record<string, any> {
  const root: Record<string, any> = {}
  for (const [key, value] of new URLSearchParams(text)) {
    const path = key.replace(/\]/g, '').split('[')
    let node: any = root
    path.forEach((segment, i) => {
      const last = i === path.length - 1
      const nextIsIndex = !last && /^\d*$/.test(path[i + 1]!)
      const slot = segment === '' && Array.isArray(node) ? node.length : segment
      if (last) node[slot] = value
      else node = node[slot] ??= nextIsIndex ? [] : {}
    })
  }
  return root
}

function stripeError(status: number, message: string, extra: { type?: string; code?: string; param?: string } = {}) {
  const type = extra.type ?? (status >= 500 ? 'api_error' : 'invalid_request_error')
  return Response.json(
    { error: { type, message, ...(extra.code ? { code: extra.code } : {}), ...(extra.param ? { param: extra.param } : {}) } },
    { status },
  )
}

const missing = (kind: string, value: string, param = 'id') =>
  stripeError(404, `No such ${kind}: '${value}'`, { code: 'resource_missing', param })

export function startFakeStripe({
  secretKey = 'sk_test_fake',
  prices = ['price_pro_monthly'],
  now = () => new Date(),
  periodSeconds = 30 * 86_400,
}: FakeStripeOptions = {}) {
  const requests: RecordedStripeRequest[] = []
  const customers = new Map<string, StripeCustomer>()
  const sessions = new Map<string, FakeCheckoutSession>()
  const subscriptions = new Map<string, FakeSubscription>()
  const portalSessions: {
    id: string
    object: 'billing_portal.session'
    customer: string
    return_url: string | null
    url: string
    created: number
  }[] = []
  const failures: { status: number; message?: string }[] = []
  const seconds = () => Math.floor(now().getTime() / 1000)

  function route(method: string, path: string, body: Record<string, any>, query: Record<string, any>): Response {
    const parts = path.split('/').filter(Boolean).map(decodeURIComponent)
    const [v1, resource, sub, third] = parts
    if (v1 !== 'v1') return unrecognized(method, path)

    if (resource === 'customers' && method === 'POST' && parts.length === 2) {
      const customer: StripeCustomer = {
        id: id('cus'),
        object: 'customer',
        email: body.email ?? null,
        metadata: body.metadata ?? {},
        created: seconds(),
        livemode: false,
      }
      customers.set(customer.id, customer)
      return Response.json(customer)
    }

    if (resource === 'checkout' && sub === 'sessions') {
      if (method === 'POST' && parts.length === 3) return createSession(body)
      if (method === 'GET' && parts.length === 4) {
        const session = sessions.get(third!)
        return session ? Response.json(publicSession(session)) : missing('checkout.session', third!)
      }
    }

    if (resource === 'subscriptions') {
      if (method === 'GET' && parts.length === 2) return listSubscriptions(query)
      const subscription = parts.length === 3 ? subscriptions.get(sub!) : undefined
      if (parts.length === 3 && (method === 'GET' || method === 'DELETE') && !subscription) return missing('subscription', sub!)
      if (method === 'GET' && subscription) return Response.json(subscription)
      if (method === 'DELETE' && subscription) {
        // DELETE /v1/subscriptions/:id cancels at once (not at the period end).
        if (subscription.status !== 'canceled')
          Object.assign(subscription, { status: 'canceled', canceled_at: seconds(), ended_at: seconds() })
        return Response.json(subscription)
      }
    }

    if (resource === 'billing_portal' && sub === 'sessions' && method === 'POST' && parts.length === 3) {
      if (!body.customer) return stripeError(400, 'Missing required param: customer.', { code: 'parameter_missing', param: 'customer' })
      if (!customers.has(body.customer)) return missing('customer', body.customer, 'customer')
      const portal = {
        id: id('bps'),
        object: 'billing_portal.session' as const,
        customer: body.customer,
        return_url: body.return_url ?? null,
        url: '',
        created: seconds(),
      }
      portal.url = `https://billing.stripe.com/p/session/${portal.id}`
      portalSessions.push(portal)
      return Response.json(portal)
    }
    return unrecognized(method, path)
  }

  const unrecognized = (method: string, path: string) =>
    stripeError(
      404,
      `Unrecognized request URL (${method}: ${path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
    )

  function createSession(body: Record<string, any>): Response {
    const mode = body.mode
    if (!mode) return stripeError(400, 'Missing required param: mode.', { code: 'parameter_missing', param: 'mode' })
    if (!['payment', 'setup', 'subscription'].includes(mode))
      return stripeError(400, `Invalid mode: must be one of payment, setup, or subscription`, {
        code: 'parameter_invalid_empty',
        param: 'mode',
      })
    const items = Array.isArray(body.line_items) ? body.line_items : []
    if (mode === 'subscription' && items.length === 0) {
      return stripeError(400, 'You must specify `line_items` in `subscription` mode.', { code: 'parameter_missing', param: 'line_items' })
    }
    for (const [i, item] of items.entries()) {
      if (!prices.includes(item?.price)) return missing('price', String(item?.price), `line_items[${i}][price]`)
    }
    if (body.customer && !customers.has(body.customer)) return missing('customer', body.customer, 'customer')
    const session: FakeCheckoutSession = {
      id: id('cs'),
      object: 'checkout.session',
      mode,
      status: 'open',
      payment_status: 'unpaid',
      url: null,
      customer: body.customer ?? null,
      customer_email: body.customer_email ?? null,
      subscription: null,
      client_reference_id: body.client_reference_id ?? null,
      metadata: body.metadata ?? {},
      success_url: body.success_url ?? null,
      cancel_url: body.cancel_url ?? null,
      line_items_requested: items.map((item: any) => ({ price: item.price, quantity: Number(item.quantity ?? 1) })),
      subscription_metadata: body.subscription_data?.metadata ?? {},
      created: seconds(),
      expires_at: seconds() + 86_400,
      livemode: false,
    }
    session.url = `https://checkout.stripe.com/c/pay/${session.id}`
    sessions.set(session.id, session)
    return Response.json(publicSession(session))
  }

  /** What Stripe answers: the requested line items are not part of a session object (they are expandable). */
  function publicSession(session: FakeCheckoutSession) {
    const { line_items_requested: _items, subscription_metadata: _meta, ...rest } = session
    return structuredClone(rest)
  }

  function listSubscriptions(query: Record<string, any>): Response {
    const limit = Math.min(Math.max(Number(query.limit ?? 10), 1), 100)
    const status = query.status as string | undefined
    const all = [...subscriptions.values()]
      .filter((s) => !query.customer || s.customer === query.customer)
      // Without `status`, Stripe lists every subscription that is not canceled; `all` includes those too.
      .filter((s) => (status === 'all' ? true : status ? s.status === status : s.status !== 'canceled'))
      .reverse() // newest first
    return Response.json({ object: 'list', data: all.slice(0, limit), has_more: all.length > limit, url: '/v1/subscriptions' })
  }

  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const url = new URL(req.url)
      const raw = await req.text()
      const headers: Record<string, string> = {}
      req.headers.forEach((value, name) => {
        headers[name] = value
      })
      const query = parseStripeForm(url.search.slice(1))
      const isForm = (req.headers.get('content-type') ?? '').startsWith('application/x-www-form-urlencoded')
      const body = req.method === 'POST' && isForm ? parseStripeForm(raw) : {}
      requests.push({ method: req.method, path: url.pathname, query, headers, body, raw })

      const failure = failures.shift()
      if (failure)
        return stripeError(
          failure.status,
          failure.message ?? 'An unknown error occurred',
          failure.status === 429 ? { type: 'invalid_request_error', code: 'rate_limit' } : {},
        )

      const auth = req.headers.get('authorization')
      if (!auth) {
        return stripeError(
          401,
          "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').",
        )
      }
      if (auth !== `Bearer ${secretKey}`)
        return stripeError(401, `Invalid API Key provided: ${auth.replace(/^Bearer /, '').slice(0, 8)}****`)
      if (req.method === 'POST' && raw && !isForm)
        return stripeError(400, 'Invalid request: request body must be application/x-www-form-urlencoded.')
      return route(req.method, url.pathname, body, query)
    },
  })

  return {
    /** Give as STRIPE_API_URL. */
    apiUrl: `http://127.0.0.1:${server.port}`,
    secretKey,
    requests,
    customers,
    sessions,
    subscriptions,
    portalSessions,
    /** Recorded requests of one method and path (path given without the query string). */
    requestsTo: (method: string, path: string) => requests.filter((r) => r.method === method && r.path === path),
    /** The buyer pays on the hosted page: the session completes and an active subscription is created. */
    pay(sessionId: string): FakeSubscription {
      const session = sessions.get(sessionId)
      if (!session) throw new Error(`fake Stripe: no checkout session ${sessionId}`)
      if (session.status !== 'open') throw new Error(`fake Stripe: checkout session ${sessionId} is ${session.status}`)
      let customer = session.customer
      if (!customer) {
        const created: StripeCustomer = {
          id: id('cus'),
          object: 'customer',
          email: session.customer_email,
          metadata: {},
          created: seconds(),
          livemode: false,
        }
        customers.set(created.id, created)
        customer = created.id
      }
      const start = seconds()
      const subscription: FakeSubscription = {
        id: id('sub'),
        object: 'subscription',
        customer,
        status: 'active',
        cancel_at_period_end: false,
        canceled_at: null,
        ended_at: null,
        created: start,
        items: {
          object: 'list',
          has_more: false,
          url: '/v1/subscription_items',
          data: session.line_items_requested.map((item) => ({
            id: id('si'),
            object: 'subscription_item' as const,
            price: { id: item.price, object: 'price' as const, active: true as const, currency: 'usd', recurring: { interval: 'month' } },
            quantity: item.quantity,
            current_period_start: start,
            current_period_end: start + periodSeconds,
          })),
        },
        metadata: { ...session.subscription_metadata },
        livemode: false,
      }
      subscriptions.set(subscription.id, subscription)
      Object.assign(session, { status: 'complete', payment_status: 'paid', customer, subscription: subscription.id })
      return subscription
    },
    /** The session as Stripe shows it (GET /v1/checkout/sessions/:id, or a checkout.session.* event's object). */
    session(sessionId: string) {
      const session = sessions.get(sessionId)
      if (!session) throw new Error(`fake Stripe: no checkout session ${sessionId}`)
      return publicSession(session)
    },
    subscription(subscriptionId: string): FakeSubscription {
      const subscription = subscriptions.get(subscriptionId)
      if (!subscription) throw new Error(`fake Stripe: no subscription ${subscriptionId}`)
      return structuredClone(subscription)
    },
    /** Changes a subscription as the portal or Stripe's dunning would; `current_period_end` moves every item's. */
    setSubscription(
      subscriptionId: string,
      changes: Partial<Pick<FakeSubscription, 'status' | 'cancel_at_period_end' | 'metadata'>> & { current_period_end?: number },
    ): FakeSubscription {
      const subscription = subscriptions.get(subscriptionId)
      if (!subscription) throw new Error(`fake Stripe: no subscription ${subscriptionId}`)
      const { current_period_end, ...rest } = changes
      Object.assign(subscription, rest)
      if (rest.status === 'canceled') Object.assign(subscription, { canceled_at: seconds(), ended_at: seconds() })
      if (current_period_end !== undefined) for (const item of subscription.items.data) item.current_period_end = current_period_end
      return structuredClone(subscription)
    },
    /** An invoice for the subscription's latest period, as in invoice.* events. */
    invoice(subscriptionId: string, status: 'open' | 'paid' = 'open') {
      const subscription = subscriptions.get(subscriptionId)
      if (!subscription) throw new Error(`fake Stripe: no subscription ${subscriptionId}`)
      return {
        id: id('in'),
        object: 'invoice',
        customer: subscription.customer,
        status,
        attempt_count: 1,
        billing_reason: 'subscription_cycle',
        parent: { type: 'subscription_details', subscription_details: { subscription: subscription.id, metadata: subscription.metadata } },
        created: seconds(),
        livemode: false,
      }
    },
    /** A webhook event wrapping `object` (give `eventId` to re-send the same event). */
    event<T>(type: string, object: T, eventId = id('evt')): StripeEvent<T> {
      return {
        id: eventId,
        object: 'event',
        api_version: API_VERSION,
        created: seconds(),
        type,
        data: { object: structuredClone(object) },
        livemode: false,
        pending_webhooks: 1,
        request: { id: null, idempotency_key: null },
      }
    },
    /** The next request (whatever it is) fails with `status` and Stripe's error body; call n times for n failures. */
    failNext(status: number, message?: string) {
      failures.push({ status, message })
    },
    stop: () => server.stop(true),
  }
}

export type FakeStripe = ReturnType<typeof startFakeStripe>

/**
 * A webhook delivery as Stripe sends it: the JSON body and `Stripe-Signature: t=<unix seconds>,v1=<hex
 * HMAC-SHA256 of "<t>.<body>" under the endpoint secret>`. `extraSignatures` adds further v1 entries (as
 * during secret rotation) and `v0` (Stripe's test-mode legacy scheme, which receivers must ignore).
 */
export function signedEvent(
  secret: string,
  event: unknown,
  timestamp: number,
  options: { extraSignatures?: string[]; withV0?: boolean } = {},
) {
  const body = JSON.stringify(event, null, 2)
  const signature = createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex')
  const entries = [`t=${timestamp}`, `v1=${signature}`, ...(options.extraSignatures ?? []).map((s) => `v1=${s}`)]
  if (options.withV0) entries.push(`v0=${createHmac('sha256', 'legacy').update(body).digest('hex')}`)
  return { body, header: entries.join(','), signature }
}
