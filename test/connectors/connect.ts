// The browser's part of connecting a connector: open the consent URL (a local fake consents at once) and
// follow its redirect back to the service's OAuth return.
import { expect } from 'bun:test'
import { BASE, type TestApp, type TestUser } from '../harness'

export const CONNECTOR_CALLBACK = `${BASE}/api/connectors/oauth/callback`

export async function consent(t: TestApp, authorizationUrl: string, cookie?: string): Promise<Response> {
  const atProvider = await fetch(authorizationUrl, { redirect: 'manual' })
  expect(atProvider.status).toBe(302)
  const back = atProvider.headers.get('location')!
  expect(back.startsWith(CONNECTOR_CALLBACK)).toBe(true)
  return t.app.handle(new Request(back, { headers: cookie ? { cookie } : {} }))
}

/** Creates a connector of `type` and completes its OAuth dance; answers the connector as the return gave it. */
export async function connectConnector(t: TestApp, user: TestUser, body: { type: string } & Record<string, unknown>) {
  const created = await t.json('POST', '/api/connectors', { key: user.key, body })
  expect(created.status).toBe(201)
  const returned = await consent(t, created.body.authorization_url)
  expect(returned.status).toBe(200)
  return ((await returned.json()) as { connector: { id: string; connection_id: string; status: string } }).connector
}
