// The drafts waiting for review, read in full (body and metadata: the list gives summaries), and what their
// metadata says (docs/decisions.md#draft-metadata: topic, confidence, evidence, conversation_id, supersedes; other keys kept). A draft
// proposed from a conversation names its evidence as message ids (evidence: [id…]) and its thread (thread_id).
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
  /** The messages a learning proposed from a conversation rests on, by document id. */
  evidenceMessages?: string[]
  /** The conversation (thread) it was proposed from. */
  thread?: string
  conversation?: string
  supersedes?: string
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** The metadata an agent may send, each only when it has the right type (metadata is free-form JSON). */
export function factsOf(draft: Draft): DraftFacts {
  const m = draft.metadata as Record<string, unknown>
  const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : undefined)
  const id = (v: unknown) => (typeof v === 'string' && UUID.test(v) ? v : undefined)
  const messages = Array.isArray(m.evidence) ? [...new Set(m.evidence.map(id).filter((v) => v !== undefined))] : []
  return {
    topic: text(m.topic),
    confidence: typeof m.confidence === 'number' && m.confidence >= 0 && m.confidence <= 1 ? m.confidence : undefined,
    evidence: text(m.evidence),
    evidenceMessages: messages.length ? messages : undefined,
    thread: id(m.thread_id),
    conversation: id(m.conversation_id),
    supersedes: id(m.supersedes),
  }
}
