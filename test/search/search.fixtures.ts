// Helpers of the search suites: add a hand-made document, search as a user, read ids and scores back.
import { expect } from 'bun:test'
import { isMemoryKind } from '../../src/modules/documents/documents.model'
import type { TestApp, TestUser } from '../harness'

export interface SearchParams {
  q?: string
  limit?: number | string
  workspace_id?: string
  kind?: string
  tag?: string
  source?: string
  mode?: string
  after?: string
  before?: string
}

export interface SearchResult {
  document: {
    id: string
    title: string
    workspace_id: string
    kind: string
    tags: string[]
    source: string
    status: string
    pinned: boolean
    rating: number
    occurred_at: string
    speaker: string | null
  }
  score: number
  snippet: string
  context?: { before: Neighbour[]; after: Neighbour[] }
  signals: {
    keyword_rank: number | null
    keyword_score: number | null
    semantic_rank: number | null
    semantic_score: number | null
    matched_terms: number
    boost: number
  }
}

export interface Neighbour {
  id: string
  speaker: string | null
  occurred_at: string
  excerpt: string
}

export interface SearchBody {
  query: string
  mode: string
  matched: 'all' | 'any' | 'none'
  took_ms: number
  results: SearchResult[]
  notice?: string
}

export const searchPath = (params: SearchParams) => {
  const qs = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) if (v !== undefined) qs.set(k, String(v))
  return `/api/search?${qs}`
}

/** GET /api/search with the user's key; the raw answer, whatever its status. */
export const searchRaw = (t: TestApp, user: TestUser, params: SearchParams) => t.json('GET', searchPath(params), { key: user.key })

/** GET /api/search with the user's key; expects 200 and returns the body. */
export async function search(t: TestApp, user: TestUser, params: SearchParams | string): Promise<SearchBody> {
  const res = await searchRaw(t, user, typeof params === 'string' ? { q: params } : params)
  expect({ status: res.status, body: res.status === 200 ? 'ok' : res.body }).toEqual({ status: 200, body: 'ok' })
  return res.body
}

/** Ids of the results of a search, in rank order. */
export const searchIds = async (t: TestApp, user: TestUser, params: SearchParams | string) =>
  (await search(t, user, params)).results.map((r) => r.document.id)

/** Ingests a hand-made document with the user's key (a memory as the person signed in, so it is active) and expects a new one (201). */
export async function add(
  t: TestApp,
  user: TestUser,
  doc: { title: string; body: string } & Record<string, unknown>,
): Promise<{ id: string } & Record<string, any>> {
  const res = await t.json('POST', '/api/documents', {
    ...(isMemoryKind(String(doc.kind)) ? { cookie: user.cookie } : { key: user.key }),
    body: { source: 'api', ...doc },
  })
  expect({ status: res.status, error: res.body?.error }).toEqual({ status: 201, error: undefined })
  return res.body
}

/** Calls a document route with the user's key and expects `status`. */
export async function act(t: TestApp, user: TestUser, method: string, path: string, status: number, body?: unknown) {
  const res = await t.json(method, path, { key: user.key, body })
  expect({ method, path, status: res.status }).toEqual({ method, path, status })
  return res.body
}
