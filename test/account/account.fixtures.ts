// Helpers of the account suites: ingest, ask and read the streamed answer, upload an avatar, and small images
// of each accepted type (just their magic bytes and a few more, which is all the service looks at).
import { expect } from 'bun:test'
import { readSseEvents } from '../../src/lib/sse-events'
import { isMemoryKind } from '../../src/modules/documents/documents.model'
import { BASE, type RequestOptions, type TestApp, type TestUser } from '../harness'

export interface Doc {
  id: string
  workspace_id: string
  kind: string
  source: string
  status: string
  [k: string]: unknown
}

/** Ingests with the user's key (a memory as the person signed in, so it is active) and expects a new document (201). */
export async function ingest(t: TestApp, u: TestUser, body: Record<string, unknown>): Promise<Doc> {
  const auth = isMemoryKind(String(body.kind)) ? { cookie: u.cookie } : { key: u.key }
  const res = await t.json('POST', '/api/documents', { ...auth, body: { title: 'Note', source: 'api', ...body } })
  expect({ status: res.status, error: res.body?.error }).toEqual({ status: 201, error: undefined })
  return res.body
}

/** Creates a workspace with the user's key (201). */
export async function createWorkspace(t: TestApp, u: TestUser, name: string): Promise<{ id: string; name: string }> {
  const res = await t.json('POST', '/api/workspaces', { key: u.key, body: { name } })
  expect({ status: res.status, error: res.body?.error }).toEqual({ status: 201, error: undefined })
  return res.body
}

export async function workspaceIds(t: TestApp, u: TestUser): Promise<string[]> {
  const res = await t.json('GET', '/api/workspaces', { key: u.key })
  expect(res.status).toBe(200)
  return res.body.data.map((w: { id: string }) => w.id)
}

export async function getSettings(t: TestApp, u: TestUser) {
  const res = await t.json('GET', '/api/settings', { key: u.key })
  expect(res.status).toBe(200)
  return res.body as { default_workspace_id: string | null; search_mode: string; answer_style: string; remember_conversations: boolean }
}

/** PATCH /api/settings and expect 200; returns the settings it answers. */
export async function patchSettings(t: TestApp, u: TestUser, body: Record<string, unknown>) {
  const res = await t.json('PATCH', '/api/settings', { key: u.key, body })
  expect({ status: res.status, error: res.body?.error }).toEqual({ status: 200, error: undefined })
  return res.body as { default_workspace_id: string | null; search_mode: string; answer_style: string; remember_conversations: boolean }
}

export type AskEvent =
  | { type: 'delta'; text: string }
  | { type: 'sources'; sources: unknown[] }
  | { type: 'saved'; conversation: { id: string } }
  | { type: 'error'; message: string; code: string }

/** POST /api/ask through app.handle; the whole stream read back as its `data:` events. */
export async function ask(
  t: TestApp,
  u: TestUser,
  body: Record<string, unknown>,
): Promise<{ events: AskEvent[]; answer: string; conversationId: string }> {
  const res = await t.request('POST', '/api/ask', { key: u.key, body })
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toStartWith('text/event-stream')
  const events: AskEvent[] = []
  for await (const { data } of readSseEvents(res.body!)) events.push(JSON.parse(data) as AskEvent)
  const failure = events.find((e) => e.type === 'error')
  expect(failure).toBeUndefined()
  const saved = events.find((e) => e.type === 'saved') as Extract<AskEvent, { type: 'saved' }> | undefined
  expect(saved).toBeDefined()
  const answer = events.flatMap((e) => (e.type === 'delta' ? [e.text] : [])).join('')
  return { events, answer, conversationId: saved!.conversation.id }
}

/** The sentences of an extractive answer: each ends with its citation, "… [n]." */
export const citedSentences = (answer: string) => answer.match(/[^[\]]+?\s\[\d+\]\./g)?.map((s) => s.trim()) ?? []

const bytes = (...parts: (number[] | string)[]) =>
  new Uint8Array(parts.flatMap((p) => (typeof p === 'string' ? [...p].map((c) => c.charCodeAt(0)) : p)))

/** Tiny images, by the first bytes each format starts with, plus a few bytes of "content". */
export const IMAGES = {
  png: { bytes: bytes([0x89], 'PNG', [0x0d, 0x0a, 0x1a, 0x0a], [0, 0, 0, 13], 'IHDR', [1, 2, 3]), type: 'image/png' },
  jpeg: { bytes: bytes([0xff, 0xd8, 0xff, 0xe0, 0, 16], 'JFIF', [0, 4, 5, 6]), type: 'image/jpeg' },
  gif: { bytes: bytes('GIF89a', [1, 0, 1, 0, 0x80, 0, 0]), type: 'image/gif' },
  webp: { bytes: bytes('RIFF', [26, 0, 0, 0], 'WEBPVP8 ', [7, 8, 9]), type: 'image/webp' },
} as const

/** A file of `size` bytes that starts like a PNG. */
export function pngOfSize(size: number): Uint8Array {
  const out = new Uint8Array(size)
  out.set(IMAGES.png.bytes)
  return out
}

/** POST /api/avatar with a multipart `file` field (by key unless options say otherwise). */
export function uploadAvatar(
  t: TestApp,
  u: TestUser,
  content: Uint8Array | string,
  declared: { type?: string; name?: string } = {},
  options: RequestOptions = { key: u.key },
) {
  const form = new FormData()
  form.append('file', new Blob([content as Uint8Array<ArrayBuffer>], { type: declared.type ?? '' }), declared.name ?? 'avatar')
  return t.json('POST', '/api/avatar', { ...options, body: form })
}

/** The path of an absolute URL the service handed out (its links are built on BASE_URL). */
export function pathOf(url: string): string {
  expect(url.startsWith(`${BASE}/`)).toBe(true)
  return url.slice(BASE.length)
}
