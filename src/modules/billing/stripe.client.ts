// Stripe's REST API through fetch: form-encoded requests with the secret key as a Bearer token, JSON
// answers, errors turned into 502 naming Stripe and its status (Stripe's own message and any network error go
// to the log: they name our key, hosts and ports). The base URL is configurable (tests run a fake).
import type { Config } from '../../config'
import { AppError, providerFailed } from '../../http/errors'

export interface StripeSubscription {
  id: string
  customer: string
  status: string
  cancel_at_period_end: boolean
  /** Seconds; on older API versions here, on newer ones on each item. */
  current_period_end?: number | null
  items?: { data: { price: { id: string }; current_period_end?: number | null }[] }
  metadata?: Record<string, string>
}

export interface StripeCheckoutSession {
  id: string
  url: string | null
  status: string | null
  payment_status?: string
  customer: string | null
  subscription: string | StripeSubscription | null
  client_reference_id: string | null
  metadata?: Record<string, string>
}

type Params = Record<string, string | number | boolean | undefined | Record<string, string>>

/** Stripe's form encoding: nested keys in brackets (metadata[user_id]=…, line_items[0][price]=…). */
export function formEncode(params: Params): string {
  const form = new URLSearchParams()
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue
    if (typeof value === 'object') for (const [k, v] of Object.entries(value)) form.append(`${key}[${k}]`, v)
    else form.append(key, String(value))
  }
  return form.toString()
}

export function createStripeClient(config: Config['stripe'] & { secretKey: string }) {
  async function call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, params: Params = {}, idempotencyKey?: string): Promise<T> {
    const query = method === 'GET' && Object.keys(params).length ? `?${formEncode(params)}` : ''
    let res: Response
    try {
      res = await fetch(`${config.apiUrl}${path}${query}`, {
        method,
        headers: {
          authorization: `Bearer ${config.secretKey}`,
          'content-type': 'application/x-www-form-urlencoded',
          // Stripe answers a repeated key with the first result: a retried or doubled create makes one object.
          ...(idempotencyKey && { 'idempotency-key': idempotencyKey }),
        },
        body: method === 'POST' ? formEncode(params) : undefined,
        signal: AbortSignal.timeout(15_000),
      })
    } catch (error) {
      throw providerFailed('Stripe could not be reached', error)
    }
    const body = (await res.json().catch(() => ({}))) as { error?: { message?: string } }
    // Stripe's 404 means the object is not there (a bad id from the client); anything else is Stripe failing us.
    if (res.status === 404) throw new AppError(404, `Stripe has no such object (${method} ${path})`)
    if (!res.ok) throw providerFailed(`Stripe answered ${res.status}`, new Error(`Stripe: ${body.error?.message ?? 'no message'}`))
    return body as T
  }
  return {
    createCustomer: (email: string, userId: string) =>
      call<{ id: string }>('POST', '/v1/customers', { email, metadata: { user_id: userId } }, `customer-${userId}`),
    createCheckoutSession: (params: { customer: string; price: string; userId: string; successUrl: string; cancelUrl: string }) =>
      call<StripeCheckoutSession>('POST', '/v1/checkout/sessions', {
        mode: 'subscription',
        customer: params.customer,
        'line_items[0][price]': params.price,
        'line_items[0][quantity]': 1,
        success_url: params.successUrl,
        cancel_url: params.cancelUrl,
        client_reference_id: params.userId,
        metadata: { user_id: params.userId },
        'subscription_data[metadata][user_id]': params.userId,
      }),
    getCheckoutSession: (id: string) => call<StripeCheckoutSession>('GET', `/v1/checkout/sessions/${encodeURIComponent(id)}`),
    getSubscription: (id: string) => call<StripeSubscription>('GET', `/v1/subscriptions/${encodeURIComponent(id)}`),
    listSubscriptions: (customer: string) =>
      call<{ data: StripeSubscription[] }>('GET', '/v1/subscriptions', { customer, status: 'all', limit: 10 }),
    cancelSubscription: (id: string) => call<StripeSubscription>('DELETE', `/v1/subscriptions/${encodeURIComponent(id)}`),
    createPortalSession: (customer: string, returnUrl: string) =>
      call<{ id: string; url: string }>('POST', '/v1/billing_portal/sessions', { customer, return_url: returnUrl }),
  }
}

export type StripeClient = ReturnType<typeof createStripeClient>
