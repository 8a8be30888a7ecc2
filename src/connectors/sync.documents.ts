// How a connector item becomes a document: upserted by (connector, external id) with source `connector`, each
// in its own transaction under the user's plan limits — never a partial document — and removed when it is
// gone upstream. What the user changed here (status, pinned, rating, tags) survives an upstream edit.
import { and, eq, inArray, isNotNull, sql } from 'drizzle-orm'
import { connectors, documents, events, tombstones } from '../../db/schema'
import { storableText } from '../lib/storable-text'
import type { Deps } from '../deps'
import { AppError } from '../http/errors'
import { lockUser } from '../lib/locks'
import { contentHash, deriveExcerpt, deriveTitle, sizeOf } from '../modules/documents/documents.model'
import { limitVerdict } from '../modules/documents/documents.service'
import type { SessionUser } from '../modules/auth/sessions.service'
import { indexDocument } from '../retrieval/indexing'
import type { RemoteItem } from './provider'

export type ConnectorRow = typeof connectors.$inferSelect

/** A plan limit stopped the sync: nothing half-written, the message says which limit. */
export class LimitReached extends Error {}

export interface KnownItem {
  documentId: string
  version: string | null
}

/** The connector's documents by external id, with the upstream version each was made from. */
export async function knownItems(deps: Deps, connector: ConnectorRow): Promise<Map<string, KnownItem>> {
  const rows = await deps.db
    .select({ id: documents.id, external_id: documents.external_id, version: sql<string | null>`${documents.metadata}->'remote'->>'version'` })
    .from(documents)
    .where(and(eq(documents.user_id, connector.user_id), eq(documents.source_ref, connector.id), isNotNull(documents.external_id)))
  return new Map(rows.map((r) => [r.external_id!, { documentId: r.id, version: r.version }]))
}

/** External ids the user forgot: a sync never brings them back. */
export async function forgottenItems(deps: Deps, connector: ConnectorRow): Promise<Set<string>> {
  const rows = await deps.db
    .select({ external_id: tombstones.external_id })
    .from(tombstones)
    .where(and(eq(tombstones.user_id, connector.user_id), eq(tombstones.source_ref, connector.id), isNotNull(tombstones.external_id)))
  return new Set(rows.map((r) => r.external_id!))
}

/** Inserts or updates the item's document; answers which it was. Throws LimitReached past a plan limit. */
export async function upsertItem(deps: Deps, user: SessionUser, connector: ConnectorRow, item: RemoteItem, fetched: string): Promise<'added' | 'updated'> {
  const body = storableText(fetched)
  const title = storableText(item.title).trim().slice(0, 500) || deriveTitle(body, item.url)
  const excerpt = deriveExcerpt(body)
  const remote = { version: item.version, ...(item.container ? { container: item.container } : {}) }
  const metadata = { connector: { id: connector.id, type: connector.type }, remote }
  const size = sizeOf({ title, excerpt, body, metadata })
  const now = deps.clock.now()
  return deps.db.transaction(async (tx) => {
    await lockUser(tx, user.id, 'documents')
    const [existing] = await tx
      .select()
      .from(documents)
      .where(and(eq(documents.user_id, user.id), eq(documents.source_ref, connector.id), eq(documents.external_id, item.externalId)))
    const { reason } = await limitVerdict(deps, tx, user, size, existing)
    if (reason) throw new LimitReached(reason)
    const fields = { title, excerpt, body, url: item.url, content_hash: contentHash(body), size_bytes: size, index_status: 'pending', updated_at: now }
    if (existing) {
      const [row] = await tx
        .update(documents)
        .set({ ...fields, metadata: { ...existing.metadata, ...metadata } })
        .where(eq(documents.id, existing.id))
        .returning()
      await indexDocument(tx, deps, row!)
      return 'updated'
    }
    if (!connector.workspace_id) throw new AppError(409, 'the connector has no workspace: set one with PATCH')
    const [row] = await tx
      .insert(documents)
      .values({
        id: deps.ids.next(),
        user_id: user.id,
        workspace_id: connector.workspace_id,
        ...fields,
        tags: [],
        kind: 'document',
        status: 'active',
        source: 'connector',
        source_ref: connector.id,
        external_id: item.externalId,
        metadata,
        created_at: now,
      })
      .returning()
    await indexDocument(tx, deps, row!)
    await tx.insert(events).values({ id: deps.ids.next(), user_id: user.id, type: 'ingest', created_at: now })
    return 'added'
  })
}

/** Deletes the connector's documents for these external ids (gone upstream); answers how many went. */
export async function removeItems(deps: Deps, connector: ConnectorRow, externalIds: string[]): Promise<number> {
  let removed = 0
  for (let i = 0; i < externalIds.length; i += 500) {
    const batch = externalIds.slice(i, i + 500)
    const gone = await deps.db
      .delete(documents)
      .where(and(eq(documents.user_id, connector.user_id), eq(documents.source_ref, connector.id), inArray(documents.external_id, batch)))
      .returning({ id: documents.id })
    removed += gone.length
  }
  return removed
}
