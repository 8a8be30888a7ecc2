// Ingest of many documents — POST /api/documents/bulk, POST /api/documents (a batch of one) and the connector sync
// all write here: a constant number of statements per transaction, whatever its size (bulk.plan.ts decides and
// writes). On PostgreSQL a batch is one transaction. On the embedded database, whose one connection every request
// shares, a large batch is written in groups of a few hundred KiB, each a transaction, and whatever other requests
// wait for the connection runs between two of them: one account's bulk never holds another's search for seconds.
import { type Db, yieldConnection } from '../../../db/client'
import type { Deps } from '../../deps'
import { AppError } from '../../http/errors'
import { lockUser } from '../../lib/locks'
import type { SessionUser } from '../auth/sessions.service'
import { groupsOf, mapInGroups } from './bulk.groups'
import { assertWithinPlan, type BulkItem, failed, hasCaps, type ItemResult, openItem, planItems, writePlan } from './bulk.plan'
import { assertBodySize, assertMetadataSize } from './documents.model'

/** A batch this large keeps the user's cached keyword index following it group by group (index-cache.ts, follow):
 * a search after it catches up a group, not the whole batch. A smaller write leaves the catch-up to the next search,
 * which pays the same once however many writes came before it. */
const FOLLOWED_BATCH = 100

export type { BulkItem, ExternalRef, ItemResult } from './bulk.plan'

export const MAX_BULK_DOCUMENTS = 1000

/**
 * Writes `items` (an AppError stands for an item refused before, e.g. by validation) and answers one result per
 * item, in order. A batch that would pass a plan cap is refused whole with 402 before anything is written: the
 * caps are counted over the whole batch in the first transaction, and the account's ingests in this process wait
 * for one another, so no ingest of the same account uses the room between two groups.
 */
export async function ingestMany(deps: Deps, user: SessionUser, items: (BulkItem | AppError)[]): Promise<ItemResult[]> {
  const results: (ItemResult | undefined)[] = items.map((item) => (item instanceof AppError ? failed(item) : checkSizes(item)))
  const indexes = items.flatMap((_, index) => (results[index] === undefined ? [index] : []))
  if (indexes.length === 0) return results as ItemResult[]
  // Hashing 32 MiB of text takes a while: a group at a time, other requests between.
  const open = await mapInGroups(
    indexes,
    (index) => (items[index] as BulkItem).body.length,
    (index) => openItem(index, items[index] as BulkItem),
  )
  const groups = deps.dbKind === 'pglite' ? groupsOf(open, (item) => item.input.body.length) : [open]
  await oneAtATime(deps.db, user.id, async () => {
    for (const [g, group] of groups.entries()) {
      const started = performance.now()
      try {
        const plan = await deps.db.transaction(async (tx) => {
          await lockUser(tx, user.id, 'documents')
          const plan = await planItems(tx, deps, user, group)
          // The first group counts the whole batch against the caps (when the plan has any).
          const whole = g === 0 && groups.length > 1 && hasCaps(deps, user) ? await planItems(tx, deps, user, open) : plan
          await assertWithinPlan(deps, tx, user, whole, g === 0 && items.length > 1)
          await writePlan(tx, deps, user, plan)
          return plan
        })
        for (const [index, result] of plan.results) results[index] = result
        if (items.length >= FOLLOWED_BATCH) void deps.keywordCache.follow(deps.db, user.id)
      } catch (error) {
        // Past the first group, only a cap reached meanwhile (a memory draft of the batch, an edit by another request)
        // stops the batch: that group is rolled back whole, and its items and the rest answer their own 402.
        if (!(g > 0 && error instanceof AppError && error.status === 402)) throw error
        for (const { index } of groups.slice(g).flat()) results[index] = failed(error)
        return
      }
      if (g < groups.length - 1) await yieldConnection(deps.db, performance.now() - started)
    }
  })
  return results as ItemResult[]
}

function checkSizes(item: BulkItem): ItemResult | undefined {
  try {
    assertBodySize(item.body)
    assertMetadataSize(item.metadata)
    return undefined
  } catch (error) {
    if (error instanceof AppError) return failed(error)
    throw error
  }
}

const writers = new WeakMap<Db, Map<string, Promise<unknown>>>()

/** Runs `write` after the account's earlier ingests in this process have finished (on the embedded database, the only
 * process), so that between the groups of one no other ingest of the account checks the caps or writes. */
async function oneAtATime<T>(db: Db, userId: string, write: () => Promise<T>): Promise<T> {
  let queue = writers.get(db)
  if (!queue) writers.set(db, (queue = new Map()))
  const running = (queue.get(userId) ?? Promise.resolve()).then(write)
  const settled = running.catch(() => {})
  queue.set(userId, settled)
  try {
    return await running
  } finally {
    if (queue.get(userId) === settled) queue.delete(userId)
  }
}
