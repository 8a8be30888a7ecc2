// A large bulk on the embedded database is written in groups, each a transaction, and other requests get the one
// connection between two of them: another account's search is answered after the group that held the connection
// when it asked, not after the whole batch. The bulk keeps its promises across groups: caps counted over the whole
// batch before anything is written, one result per item (an item may update one of an earlier group), replay by
// Idempotency-Key; the account's own ingests wait for it; a cap reached after the first group stops the batch there.
import type { PGlite, Transaction } from '@electric-sql/pglite'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { count, eq } from 'drizzle-orm'
import { events, jobs } from '../../db/schema'
import { GROUP_BYTES } from '../../src/modules/documents/bulk.groups'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { storedCount, uniqueBody } from './documents.fixtures'

let t: TestApp
beforeAll(async () => {
  // The embedded database whatever TEST_DATABASE says: on PostgreSQL a batch is one transaction.
  t = await createTestApp({ env: { PLAN_FREE_DOCUMENTS: '12' }, postgres: false })
})
afterAll(() => t.close())

/** A document of half a group: two to a transaction. */
const halfGroup = (label: string, extra: Record<string, unknown> = {}) => {
  const head = `${uniqueBody(label)} `
  return { body: head + 'grey heron wading in the reeds '.repeat(GROUP_BYTES / 16).slice(0, GROUP_BYTES / 2 - head.length), ...extra }
}
const bulk = (u: TestUser, documents: unknown[], headers?: Record<string, string>) =>
  t.json('POST', '/api/documents/bulk', { key: u.key, body: { documents }, headers })
const statuses = (res: { body: { results: { status: number }[] } }) => res.body.results.map((r) => r.status)

/**
 * Watches the bulk's groups (the transactions that insert documents). `during` is sent while the first group holds
 * the connection, once its first statement waits for it; answers how many groups had committed when it was answered.
 */
function duringFirstGroup(during: () => Promise<unknown>) {
  const pglite = (t.deps.db as unknown as { $client: PGlite }).$client
  const [transaction, query] = [pglite.transaction.bind(pglite), pglite.query.bind(pglite)]
  let groups = 0
  let answeredAfter = -1
  let sent: Promise<unknown> | undefined
  let queued: (() => void) | undefined
  pglite.query = ((...args: Parameters<PGlite['query']>) => {
    queued?.()
    return query(...args)
  }) as PGlite['query']
  pglite.transaction = (async <T>(fn: (tx: Transaction) => Promise<T>) => {
    let group = false
    const result = await transaction(async (tx) => {
      const inner = tx.query.bind(tx)
      tx.query = ((text: string, ...rest: unknown[]) => {
        if (text.includes('insert_indexed_documents')) group = true
        return (inner as (...a: unknown[]) => Promise<unknown>)(text, ...rest)
      }) as Transaction['query']
      if (!sent) {
        const waiting = new Promise<void>((resolve) => (queued = resolve))
        sent = during().then((answer) => {
          answeredAfter = groups
          return answer
        })
        await waiting
        queued = undefined
      }
      return fn(tx)
    })
    if (group) groups++
    return result
  }) as PGlite['transaction']
  return {
    answered: () => sent!,
    done() {
      Object.assign(pglite, { transaction, query })
      return { groups, answeredAfter }
    },
  }
}

describe("another account's request during a bulk", () => {
  test('is answered between two groups of the bulk, after the one that held the connection', async () => {
    const [a, b] = [await t.signUp(), await t.signUp()]
    const theirs = await t.json('POST', '/api/documents', { key: b.key, body: { title: 'Kingfisher', body: uniqueBody('kingfisher') } })
    const watch = duringFirstGroup(() => t.json('GET', '/api/search?q=kingfisher&mode=keyword', { key: b.key }))
    const res = await bulk(
      a,
      Array.from({ length: 6 }, (_, i) => halfGroup(`heron ${i}`)),
    )
    const found = (await watch.answered()) as { status: number; body: { results: { document: { id: string } }[] } }
    const { groups, answeredAfter } = watch.done()
    expect(res.status).toBe(200)
    expect(statuses(res)).toEqual([201, 201, 201, 201, 201, 201])
    expect(await storedCount(t, a)).toBe(6)
    expect(found.status).toBe(200)
    expect(found.body.results.map((r) => r.document.id)).toEqual([theirs.body.id])
    // B was answered before the bulk's last group, after the one that held the connection when it asked.
    expect(answeredAfter).toBeLessThan(groups)
    expect([groups, answeredAfter]).toEqual([3, 1])
  })
})

describe('a bulk written in groups', () => {
  test('past the document cap is refused whole with 402 before any group is written', async () => {
    const u = await t.signUp()
    const res = await bulk(
      u,
      Array.from({ length: 13 }, (_, i) => halfGroup(`over ${i}`)),
    )
    expect(res.status).toBe(402)
    expect(res.body.error).toContain('13 documents to the 0 stored')
    expect(await storedCount(t, u)).toBe(0)
    for (const table of [jobs, events])
      expect((await t.deps.db.select({ n: count() }).from(table).where(eq(table.user_id, u.id)))[0]!.n).toBe(0)
  })

  test('answers each item in order, an item updating one an earlier group wrote, and replays by Idempotency-Key', async () => {
    const u = await t.signUp()
    const documents = [
      halfGroup('first', { url: 'https://example.com/heron' }),
      halfGroup('second'),
      halfGroup('third'),
      { url: 'https://example.com/heron', body: 'The heron page, saved again.' },
      'not a document',
      halfGroup('sixth'),
    ]
    const res = await bulk(u, documents, { 'idempotency-key': 'groups-1' })
    expect(res.status).toBe(200)
    expect(statuses(res)).toEqual([201, 201, 201, 200, 400, 201])
    expect(res.body).toMatchObject({ created: 4, deduplicated: 1, failed: 1 })
    expect(res.body.results[3].document).toMatchObject({ id: res.body.results[0].document.id, deduplicated: true })
    const again = await bulk(u, documents, { 'idempotency-key': 'groups-1' })
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.body).toEqual(res.body)
    expect(await storedCount(t, u)).toBe(4)
    const page = await t.json('GET', `/api/documents/${res.body.results[0].document.id}`, { key: u.key })
    expect(page.body.body).toBe('The heron page, saved again.')
  })

  test("the account's own ingest sent meanwhile waits for the whole batch, so the caps counted for it hold", async () => {
    const u = await t.signUp()
    const watch = duringFirstGroup(() => t.json('POST', '/api/documents', { key: u.key, body: { body: uniqueBody('one more') } }))
    const res = await bulk(
      u,
      Array.from({ length: 12 }, (_, i) => halfGroup(`fits ${i}`)),
    )
    const single = (await watch.answered()) as { status: number }
    const { groups, answeredAfter } = watch.done()
    expect(res.body.created).toBe(12)
    expect(single.status).toBe(402)
    expect([groups, answeredAfter]).toEqual([6, 6])
    expect(await storedCount(t, u)).toBe(12)
  })

  test('a cap reached after the first group (by memory drafts of the batch) stops it there: earlier groups stay, whole', async () => {
    const u = await t.signUp()
    // Twelve documents fit the cap of 12, counted before anything is written; the two drafts, written with their
    // group, fill it before the last group.
    const res = await bulk(u, [
      ...Array.from({ length: 10 }, (_, i) => halfGroup(`kept ${i}`)),
      halfGroup('draft one', { kind: 'fact' }),
      halfGroup('draft two', { kind: 'fact' }),
      halfGroup('too many'),
      halfGroup('too many as well'),
    ])
    expect(res.status).toBe(200)
    expect(statuses(res)).toEqual([...Array(12).fill(201), 402, 402])
    expect(res.body.results[12]).toMatchObject({ code: 'plan_limit' })
    expect(res.body.results[12].error).toContain('document limit reached')
    expect(await storedCount(t, u)).toBe(12)
  })
})
