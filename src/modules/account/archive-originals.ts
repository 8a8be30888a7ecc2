// The originals step of export and import: the uploaded file a document was read from (document_files), kept
// beside its record as files/<document id in the archive>/<filename>. This file is the one place that reads them
// for an export and stores them on an import.
import { createHash } from 'node:crypto'
import { and, eq, inArray } from 'drizzle-orm'
import type { Tx } from '../../../db/client'
import { documentFiles } from '../../../db/schema'
import type { Deps } from '../../deps'
import { FORMAT_CONTENT_TYPES, sniffFormat } from '../../files/file-format'
import { UnreadableFile } from '../../files/extracted'
import { badRequest, paymentRequired } from '../../http/errors'
import { exceeds, limitMessage, limitsOf } from '../../plans'
import type { SessionUser } from '../auth/sessions.service'
import { storedTotals } from '../usage/usage.service'
import { ORIGINALS_DIR } from './archive-format'

export interface Original {
  /** The document's id: the stored one on export, the archive's on import. */
  document_id: string
  filename: string
  content_type: string
  bytes: Uint8Array
}

/** The originals of `documentIds` (a page of the user's documents), one at most each. */
export async function readOriginals(db: Tx, userId: string, documentIds: string[]): Promise<Original[]> {
  if (documentIds.length === 0) return []
  const rows = await db
    .select({
      document_id: documentFiles.document_id,
      filename: documentFiles.name,
      content_type: documentFiles.content_type,
      bytes: documentFiles.bytes,
    })
    .from(documentFiles)
    .where(and(eq(documentFiles.user_id, userId), inArray(documentFiles.document_id, documentIds)))
  return rows
}

/**
 * Stores the archive's originals for the documents it created (`ids`: archive id → new id), inside the import's
 * transaction, after their documents: read already (their text and sections came in the archive), so `done`.
 * Documents the import skipped as duplicates keep what they have. Their bytes count towards storage like an
 * upload's: past the plan's cap the import is refused whole (402). Answers how many were stored.
 */
export async function storeOriginals(
  tx: Tx,
  deps: Deps,
  user: SessionUser,
  ids: Map<string, string>,
  originals: Original[],
): Promise<number> {
  const now = deps.clock.now()
  const rows = originals.flatMap((o) => {
    const documentId = ids.get(o.document_id)
    if (!documentId) return []
    let format: ReturnType<typeof sniffFormat>
    try {
      format = sniffFormat(o.bytes, o.filename)
    } catch (error) {
      if (error instanceof UnreadableFile) throw badRequest(`${ORIGINALS_DIR}${o.document_id}/${o.filename}: ${error.message}`)
      throw error
    }
    return [
      {
        document_id: documentId,
        user_id: user.id,
        name: o.filename,
        format,
        content_type: FORMAT_CONTENT_TYPES[format],
        size_bytes: o.bytes.byteLength,
        sha256: createHash('sha256').update(o.bytes).digest('hex'),
        bytes: o.bytes,
        status: 'done',
        created_at: now,
        updated_at: now,
      },
    ]
  })
  if (rows.length === 0) return 0
  const adding = rows.reduce((n, r) => n + r.size_bytes, 0)
  const totals = await storedTotals(tx, user.id)
  if (exceeds(totals.storage_bytes + adding, limitsOf(deps, user.plan).storage_bytes))
    throw paymentRequired(
      `${limitMessage(deps, user.plan, 'storage_bytes')} (the archive's originals add ${adding} bytes; nothing was written)`,
    )
  for (const row of rows) await tx.insert(documentFiles).values(row)
  return rows.length
}
