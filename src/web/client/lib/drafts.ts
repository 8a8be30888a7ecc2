// The drafts waiting for review, read in full (body and metadata: the list gives summaries), and what their
// metadata says (DESIGN.md §6: topic, confidence, evidence, conversation_id, supersedes; other keys kept).
import { api, unwrap } from '../api/client'
import type { paths } from '../api/schema'

export type Draft = paths['/api/documents/{id}']['get']['responses']['200']['content']['application/json']

/** How many drafts the queue shows at once; the rest come after these are reviewed. */
export const QUEUE_SIZE = 100
const PARALLEL = 6

export async function loadDrafts(workspace_id: string | undefined, signal: AbortSignal): Promise<{ drafts: Draft[]; more: boolean }> {
  const page = await unwrap(
    api.GET('/api/documents', { params: { query: { status: 'pending_approval', workspace_id, limit: QUEUE_SIZE } }, signal }),
  )
  const drafts: Draft[] = new Array(page.data.length)
  let next = 0
  const worker = async () => {
    for (let i = next++; i < page.data.length; i = next++)
      drafts[i] = await unwrap(api.GET('/api/documents/{id}', { params: { path: { id: page.data[i]!.id } }, signal }))
  }
  await Promise.all(Array.from({ length: Math.min(PARALLEL, page.data.length) }, worker))
  return { drafts, more: page.next_cursor !== null }
}

export interface DraftFacts {
  topic?: string
  confidence?: number
  evidence?: string
  conversation?: string
  supersedes?: string
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** The metadata an agent may send, each only when it has the right type (metadata is free-form JSON). */
export function factsOf(draft: Draft): DraftFacts {
  const m = draft.metadata as Record<string, unknown>
  const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : undefined)
  return {
    topic: text(m.topic),
    confidence: typeof m.confidence === 'number' && m.confidence >= 0 && m.confidence <= 1 ? m.confidence : undefined,
    evidence: text(m.evidence),
    conversation: typeof m.conversation_id === 'string' && UUID.test(m.conversation_id) ? m.conversation_id : undefined,
    supersedes: typeof m.supersedes === 'string' && UUID.test(m.supersedes) ? m.supersedes : undefined,
  }
}
