// Helpers of the memory suites: a learning an agent would write, and saving a batch of them as drafts.
import { expect } from 'bun:test'
import type { TestApp, TestUser } from '../harness'

let seq = 0
export const learning = (overrides: Record<string, unknown> = {}) => {
  const n = ++seq
  return { kind: 'fact', title: `Learning ${n}`, body: `The agent learned thing ${n} (${crypto.randomUUID()}).`, ...overrides }
}

/** Saves the learnings as drafts with the user's key and expects 201; returns the drafts. */
export async function saveDrafts(t: TestApp, user: TestUser, workspaceId: string, learnings: Record<string, unknown>[]) {
  const res = await t.json('POST', '/api/memories/batch-draft', { key: user.key, body: { workspace_id: workspaceId, learnings } })
  expect(res.status).toBe(201)
  return res.body.data as any[]
}

/** Approves as the person signed in (the dashboard): an API key may only propose. */
export async function approve(t: TestApp, user: TestUser, id: string) {
  const res = await t.json('POST', `/api/documents/${id}/approve`, { cookie: user.cookie })
  expect(res.status).toBe(200)
  return res.body
}
