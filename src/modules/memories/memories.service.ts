// Memories: agent-written learnings saved as pending_approval drafts (all of a batch or none), and the
// memory list. Drafts stay invisible to lists and search until a person approves them.
import type { Deps } from '../../deps'
import { lockUser } from '../../lib/locks'
import type { SessionUser } from '../auth/sessions.service'
import { draftRow, insertDraftsWithinPlan } from '../documents/approval'
import { assertBodySize, assertMetadataSize, MEMORY_KINDS, toDocumentDto } from '../documents/documents.model'
import { listDocuments, type ListFilters } from '../documents/documents.service'
import { findWorkspace } from '../workspaces/workspaces.service'

export interface LearningInput {
  kind: (typeof MEMORY_KINDS)[number]
  title: string
  body: string
  tags?: string[]
  metadata?: Record<string, unknown>
}

/** Validates every learning before storing any; an error names the bad item (`learnings[3].body`). */
export async function saveDrafts(
  deps: Deps,
  user: SessionUser,
  input: { workspace_id: string; learnings: LearningInput[]; source?: 'agent' | 'mcp' },
) {
  input.learnings.forEach((l, i) => {
    assertBodySize(l.body, `learnings[${i}].body`)
    assertMetadataSize(l.metadata, `learnings[${i}].metadata`)
  })
  // Batch drafts carry no excerpt of their own: it is derived from the body.
  const rows = input.learnings.map(({ kind, title, body, tags, metadata }) =>
    draftRow(deps, user, input.workspace_id, { kind, title, body, tags, metadata, source: input.source ?? 'agent' }),
  )
  const stored = await deps.db.transaction(async (tx) => {
    await lockUser(tx, user.id, 'documents')
    await findWorkspace(tx, user.id, input.workspace_id)
    return insertDraftsWithinPlan(tx, deps, user, rows)
  })
  return { data: stored.map(toDocumentDto) }
}

export function listMemories(deps: Deps, user: SessionUser, filters: Omit<ListFilters, 'kinds' | 'source' | 'thread_id'>) {
  return listDocuments(deps, user, { ...filters, kinds: MEMORY_KINDS })
}
