// The originals step of export and import: the uploaded file a document was read from, kept beside its record as
// files/<document id in the archive>/<filename>. No table holds originals yet, so both ends are empty: this file is
// the one place that reads them for an export and stores them on an import.
import type { Tx } from '../../../db/client'

export interface Original {
  /** The document's id: the stored one on export, the archive's on import. */
  document_id: string
  filename: string
  content_type: string
  bytes: Uint8Array
}

/** The originals of `documentIds` (a page of the user's documents), one at most each. */
export async function readOriginals(_db: Tx, _userId: string, _documentIds: string[]): Promise<Original[]> {
  return []
}

/**
 * Stores the archive's originals for the documents it created (`ids`: archive id → new id), inside the import's
 * transaction. Documents the import skipped as duplicates keep what they have. Answers how many were stored.
 */
export async function storeOriginals(_tx: Tx, _userId: string, _ids: Map<string, string>, _originals: Original[]): Promise<number> {
  return 0
}
