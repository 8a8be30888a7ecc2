// Connecting a connector as a browser does — open the consent URL (a local fake consents at once) and follow
// its redirect back to the service's OAuth return — and running the sync jobs that follow.
import { expect } from 'bun:test'
import { drainJobs } from '../../src/jobs/worker'
import { BASE, type TestApp, type TestUser } from '../harness'

export const CONNECTOR_CALLBACK = `${BASE}/api/connectors/oauth/callback`

/** Runs the queued sync jobs (and only those: embedding is not what connector tests are about). */
export const runSyncs = (t: TestApp) => drainJobs(t.deps, 'test-worker', ['sync-connector'])

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
