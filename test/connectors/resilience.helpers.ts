// Steps the connector resilience stories share: connect through the real OAuth flow against a fake, run the
// sync jobs, read what a connector stored, and hold a fake's API requests one at a time.
import { expect } from 'bun:test'
import { and, asc, eq } from 'drizzle-orm'
import { documents } from '../../db/schema'
import type { TestApp, TestUser } from '../harness'
import { consent, runSyncs } from './connect'

export { CONNECTOR_CALLBACK as CALLBACK, consent, runSyncs } from './connect'

export interface Connected {
  id: string
  connectionId: string
  runId: string
}

/** Creates a connector, consents, and answers it active with its first sync queued (not run). */
export async function connect(
  t: TestApp,
  user: TestUser,
  type: 'confluence' | 'google_drive' | 'notion',
  config?: Record<string, string[]>,
): Promise<Connected> {
  const created = await t.json('POST', '/api/connectors', { key: user.key, body: { type, ...(config ? { config } : {}) } })
  expect(created.status).toBe(201)
  const returned = await consent(t, created.body.authorization_url, user.cookie)
  expect(returned.status).toBe(200)
  const body = (await returned.json()) as any
  expect(body.connector.status).toBe('active')
  return { id: body.connector.id, connectionId: body.connector.connection_id, runId: body.sync_run.id }
}

export const lastRun = async (t: TestApp, user: TestUser, id: string) =>
  (await t.json('GET', `/api/connectors/${id}`, { key: user.key })).body.last_run

/** Asks for a sync through the API, runs it, and answers the run as the user sees it. */
export async function syncNow(t: TestApp, user: TestUser, id: string) {
  const queued = await t.json('POST', `/api/connectors/${id}/sync`, { key: user.key })
  expect(queued.status).toBe(202)
  await runSyncs(t)
  return lastRun(t, user, id)
}

/** What the connector stored, straight from the table: every row counts, so a duplicate would show. */
export function storedDocuments(t: TestApp, connectorId: string) {
  return t.deps.db
    .select({ id: documents.id, external_id: documents.external_id, title: documents.title, body: documents.body })
    .from(documents)
    .where(and(eq(documents.source_ref, connectorId), eq(documents.source, 'connector')))
    .orderBy(asc(documents.title))
}

/** Polls until `check` holds; fails naming what it waited for. */
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
}

interface Gated {
  requests: unknown[]
  gateApi(gate: Promise<void> | null): void
}

/**
 * Lets a fake's API answer one request at a time. A request waits on the gate that was set when it arrived,
 * so swapping in a new gate before opening the old one lets exactly the waiting request through and holds the
 * next. `held()` is the gate the last request waits on: leave it shut and that request never returns.
 */
export function lockstep(fake: Gated) {
  const shut = () => {
    let open!: () => void
    const promise = new Promise<void>((resolve) => (open = resolve))
    return { promise, open }
  }
  let current = shut()
  fake.gateApi(current.promise)
  return {
    /** Waits until a request is held at the gate. */
    async arrived(after: number) {
      await waitFor('the next provider request', () => fake.requests.length > after)
    },
    /** Lets the held request through and waits until the next one is held. */
    async step() {
      const seen = fake.requests.length
      const previous = current
      current = shut()
      fake.gateApi(current.promise)
      previous.open()
      await waitFor('the next provider request', () => fake.requests.length > seen)
    },
    held: () => current,
  }
}
