// Small helpers the document and memory suites share: ingest as a user, find their workspaces, count what is stored.
import { expect } from 'bun:test'
import { count, eq } from 'drizzle-orm'
import { documents } from '../../db/schema'
import type { TestApp, TestUser } from '../harness'

let seq = 0
/** A body no other test uses, so content deduplication never joins two tests' documents. */
export const uniqueBody = (label = 'note') => `${label} ${++seq} ${crypto.randomUUID()}`

/** Ingests with the user's API key and expects a new document (201); returns it. */
export async function ingest(t: TestApp, user: TestUser, body: Record<string, unknown> = {}) {
  const res = await t.json('POST', '/api/documents', { key: user.key, body: { body: uniqueBody(), ...body } })
  expect(res.status).toBe(201)
  return res.body
}

export async function defaultWorkspaceId(t: TestApp, user: TestUser): Promise<string> {
  const res = await t.json('GET', '/api/workspaces', { key: user.key })
  expect(res.status).toBe(200)
  expect(res.body.data).toHaveLength(1)
  return res.body.data[0].id
}

export async function createWorkspace(t: TestApp, user: TestUser, name = 'Second'): Promise<string> {
  const res = await t.json('POST', '/api/workspaces', { key: user.key, body: { name } })
  expect(res.status).toBe(201)
  return res.body.id
}

/** Every document the user has stored, whatever its status: what "nothing stored" is measured against. */
export async function storedCount(t: TestApp, user: TestUser): Promise<number> {
  const [row] = await t.deps.db.select({ n: count() }).from(documents).where(eq(documents.user_id, user.id))
  return row?.n ?? 0
}

/** Ids of a list endpoint's first page (up to 100). */
export async function listIds(t: TestApp, user: TestUser, path: string): Promise<string[]> {
  const res = await t.json('GET', path, { key: user.key })
  expect(res.status).toBe(200)
  return res.body.data.map((d: { id: string }) => d.id)
}
