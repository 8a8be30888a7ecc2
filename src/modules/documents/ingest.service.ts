// Ingest of one document (a batch of one through bulk.service.ts: one code path for every write), and GET
// /check, the dry run that gives ingest's verdict without storing anything.
import type { Deps } from '../../deps'
import { AppError } from '../../http/errors'
import type { SessionUser } from '../auth/sessions.service'
import { resolveWorkspaceId } from '../workspaces/workspaces.service'
import { ingestMany } from './bulk.service'
import { bodySizeProblem, metadataSizeProblem } from './documents.model'
import { limitVerdict } from './documents.service'
import { findDuplicate, type Ingested, type IngestInput } from './ingest.rules'

export type { Ingested, IngestInput } from './ingest.rules'

export async function checkIngest(
  deps: Deps,
  user: SessionUser,
  input: { workspace_id?: string; size_bytes?: number; metadata_bytes?: number; url?: string },
) {
  const workspaceId = await resolveWorkspaceId(deps.db, user.id, input.workspace_id)
  const existing = await findDuplicate(deps.db, user.id, workspaceId, { url: input.url ?? null, hash: null, title: null })
  const size = input.size_bytes ?? 0
  const verdict = await limitVerdict(deps, deps.db, user, size, existing)
  // In the order ingest checks: the body's size (413), the metadata's (400), then the plan (402).
  const reason = bodySizeProblem(size) ?? metadataSizeProblem(input.metadata_bytes ?? 0) ?? verdict.reason
  return { allowed: reason === null, ...(reason ? { reason } : {}), deduplicated: existing !== undefined, usage: verdict.usage }
}

/** Plan limits are checked before anything is stored; the same URL, or the same text under the same title, updates the existing document. */
export async function ingestDocument(deps: Deps, user: SessionUser, input: IngestInput): Promise<Ingested> {
  const [result] = await ingestMany(deps, user, [input])
  if ('error' in result!) throw new AppError(result.status, result.error, {}, result.code)
  return { document: result!.document, deduplicated: result!.deduplicated }
}
