// Clients of the live server typed by the committed api.gen.ts (openapi-fetch), and the sign-up steps
// every flow starts with.
import { expect } from 'bun:test'
import createClient from 'openapi-fetch'
import type { paths } from './api.gen'

export type Client = ReturnType<typeof createClient<paths>>

export const PASSWORD = 'correct horse battery'

/** A client that records each answer as "method /schema/path status" in `seen`. */
export function newClient(baseUrl: string, seen: string[], headers?: Record<string, string>): Client {
  const client = createClient<paths>({ baseUrl, headers })
  client.use({
    onResponse({ request, schemaPath, response }) {
      seen.push(`${request.method.toLowerCase()} ${schemaPath} ${response.status}`)
    },
  })
  return client
}

/** Status and body together, so a failed expectation shows what the server said. */
export function outcome(r: { response: Response; data?: unknown; error?: unknown }) {
  return { status: r.response.status, body: r.data ?? r.error ?? null }
}

/** A new account: its user and the `session=…` cookie from Set-Cookie. */
export async function signUp(api: Client) {
  const email = `e2e-${crypto.randomUUID()}@example.com`
  const res = await api.POST('/api/auth/sign-up', { body: { email, password: PASSWORD } })
  expect(outcome(res)).toMatchObject({ status: 201, body: { user: { email } } })
  const cookie = res.response.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .find((c) => c.startsWith('session='))
  expect(cookie).toBeDefined()
  return { user: res.data!.user, cookie: cookie! }
}

/**
 * Signs up, creates an API key with the session cookie (sending the server's own Origin, as a browser on the
 * dashboard would), and returns a client that authenticates with the key from then on.
 */
export async function signUpWithKey(baseUrl: string, seen: string[]) {
  const api = newClient(baseUrl, seen)
  const { user, cookie } = await signUp(api)
  const created = await api.POST('/api/keys', { body: { label: 'e2e' }, headers: { cookie, origin: baseUrl } })
  expect(outcome(created)).toMatchObject({ status: 201 })
  const key = created.data!.key
  return { user, cookie, key, client: newClient(baseUrl, seen, { authorization: `Bearer ${key}` }) }
}
