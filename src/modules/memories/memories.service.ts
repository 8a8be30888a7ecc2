// Memories: agent-written learnings saved as pending_approval drafts (all of a batch or none), and the
// memory list. Drafts stay invisible to lists and search until a person approves them.
import { documents } from '../../../db/schema'
import type { Deps } from '../../deps'
import { lockUser } from '../../lib/locks'
import { assertWithinLimit } from '../../plans'
import type { SessionUser } from '../auth/sessions.service'
import { assertBodySize, assertMetadataSize, contentHash, deriveExcerpt, MEMORY_KINDS, normalizeTags, sizeOf, toDocumentDto } from '../documents/documents.model'
import { listDocuments, type ListFilters } from '../documents/documents.service'
import { indexDocument } from '../../retrieval/indexing'
import { storedTotals } from '../usage/usage.service'
import { findWorkspace } from '../workspaces/workspaces.service'

export interface LearningInput {
  kind: (typeof MEMORY_KINDS)[number]
  title: string
  body: string
  tags?: string[]
  metadata?: Record<string, unknown>
}

/** Validates every learning before storing any; an error names the bad item (`learnings[3].body`). */
export async function saveDrafts(deps: Deps, user: SessionUser, input: { workspace_id: string; learnings: LearningInput[]; source?: 'agent' | 'mcp' }) {
  input.learnings.forEach((l, i) => {
    assertBodySize(l.body, `learnings[${i}].body`)
    assertMetadataSize(l.metadata, `learnings[${i}].metadata`)
  })
  const now = deps.clock.now()
  const rows = input.learnings.map((l) => {
    const title = l.title.trim()
    const excerpt = deriveExcerpt(l.body)
    const metadata = l.metadata ?? {}
    const conversation = typeof metadata.conversation_id === 'string' ? metadata.conversation_id : null
    return {
      id: deps.ids.next(),
      user_id: user.id,
      workspace_id: input.workspace_id,
      title,
      excerpt,
      body: l.body,
      tags: normalizeTags(l.tags),
      kind: l.kind,
      status: 'pending_approval',
      source: input.source ?? 'agent',
      source_ref: conversation,
      content_hash: contentHash(l.body),
      size_bytes: sizeOf({ title, excerpt, body: l.body, metadata }),
      metadata,
      created_at: now,
      updated_at: now,
    }
  })
  const stored = await deps.db.transaction(async (tx) => {
    await lockUser(tx, user.id, 'documents')
    await findWorkspace(tx, user.id, input.workspace_id)
    const totals = await storedTotals(tx, user.id)
    assertWithinLimit(deps, user.plan, 'documents', totals.documents, rows.length)
    assertWithinLimit(deps, user.plan, 'storage_bytes', totals.storage_bytes, rows.reduce((sum, r) => sum + r.size_bytes, 0))
    const stored = await tx.insert(documents).values(rows).returning()
    // Indexed now, filtered out by status until approved: approval makes a memory searchable at once.
    for (const row of stored) await indexDocument(tx, deps, row)
    return stored
  })
  return { data: stored.map(toDocumentDto) }
}

export function listMemories(deps: Deps, user: SessionUser, filters: Omit<ListFilters, 'kinds' | 'source'>) {
  return listDocuments(deps, user, { ...filters, kinds: MEMORY_KINDS })
}
