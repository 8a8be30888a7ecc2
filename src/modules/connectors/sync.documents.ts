// How connector items become documents: upserted by (connector, external id) with source `connector`, a batch at
// a time through the bulk write path under the user's plan limits — never a partial document — and removed when
// they are gone upstream. What the user changed here (status, pinned, rating, tags) survives an upstream edit.
import { and, eq, inArray, isNotNull, sql } from 'drizzle-orm'
import { type connectors, documents, tombstones } from '../../../db/schema'
import { storableText } from '../../lib/storable-text'
import type { Deps } from '../../deps'
import { AppError } from '../../http/errors'
import type { SessionUser } from '../auth/sessions.service'
import { ingestMany, type BulkItem, type ItemResult } from '../documents/bulk.service'
import { deriveExcerpt, deriveTitle } from '../documents/documents.model'
import type { RemoteItem } from '../../connectors/provider'

export type ConnectorRow = typeof connectors.$inferSelect

/** A plan limit stopped the sync: nothing half-written, the message says which limit; `written` got in before it. */
export class LimitReached extends Error {
  constructor(
    message: string,
    readonly written: { added: number; updated: number },
  ) {
    super(message)
  }
}

export interface KnownItem {
  documentId: string
  version: string | null
}

/** The connector's documents by external id, with the upstream version each was made from. */
export async function knownItems(deps: Deps, connector: ConnectorRow): Promise<Map<string, KnownItem>> {
  const rows = await deps.db
    .select({
      id: documents.id,
      external_id: documents.external_id,
      version: sql<string | null>`${documents.metadata}->'remote'->>'version'`,
    })
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

/** An item and the text fetched for it. */
export interface FetchedItem {
  item: RemoteItem
  text: string
}

/**
 * Inserts or updates the items' documents through the one bulk write path (bulk.service.ts), in one transaction
 * under the user's plan limits. When the batch would pass a limit, the items are written one at a time, as many
 * as fit, and LimitReached stops the sync there — never a partial document. Answers how many were added and updated.
 */
export async function writeItems(
  deps: Deps,
  user: SessionUser,
  connector: ConnectorRow,
  fetched: FetchedItem[],
): Promise<{ added: number; updated: number }> {
  if (fetched.length === 0) return { added: 0, updated: 0 }
  if (!connector.workspace_id) throw new AppError(409, 'the connector has no workspace: set one with PATCH')
  const inputs = fetched.map(({ item, text }) => inputOf(connector, item, text))
  const tally = (results: ItemResult[]) => {
    const failed = results.find((r): r is Extract<ItemResult, { error: string }> => 'error' in r)
    if (failed) throw new AppError(failed.status, failed.error, {}, failed.code)
    return { added: results.filter((r) => r.status === 201).length, updated: results.filter((r) => r.status === 200).length }
  }
  try {
    return tally(await ingestMany(deps, user, inputs))
  } catch (error) {
    if (!(error instanceof AppError && error.status === 402)) throw error
  }
  const done = { added: 0, updated: 0 }
  for (const input of inputs) {
    try {
      const one = tally(await ingestMany(deps, user, [input]))
      done.added += one.added
      done.updated += one.updated
    } catch (error) {
      if (error instanceof AppError && error.status === 402) throw new LimitReached(error.message, done)
      throw error
    }
  }
  return done
}

function inputOf(connector: ConnectorRow, item: RemoteItem, fetched: string): BulkItem {
  const body = storableText(fetched)
  const title = storableText(item.title).trim().slice(0, 500) || deriveTitle(body, item.url)
  const remote = { version: item.version, ...(item.container ? { container: item.container } : {}) }
  return {
    workspace_id: connector.workspace_id!,
    title,
    excerpt: deriveExcerpt(body),
    body,
    url: item.url ?? undefined,
    kind: 'document',
    source: 'connector',
    metadata: { connector: { id: connector.id, type: connector.type }, remote },
    // The connector writes the user's own documents (never memories): no approval applies.
    writer: 'person',
    external: { connector_id: connector.id, external_id: item.externalId },
  }
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
