// The embedded database's write-ahead log stays within WAL_MAX_MB while documents keep coming: PGlite has no
// checkpointer of its own, so before db/pglite-checkpoints.ts the log grew with every write until the process
// stopped. A real data directory on disk, the bulk API, and pg_wal measured from the files while it runs.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { queryRows } from '../../db/client'
import { SHARED_BUFFERS_MB } from '../../db/pglite-start-params'
import { walBytes } from '../../db/pglite-checkpoints'
import { loadConfig } from '../../src/config'
import { createDeps } from '../../src/create-deps'
import { BASE, createTestApp, type TestApp } from '../harness'

setDefaultTimeout(180_000)

const LIMIT_MB = 128
let dir: string
let t: TestApp

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'memory-wal-'))
  const config = loadConfig({
    DATA_DIR: dir,
    BASE_URL: BASE,
    LOG_LEVEL: 'silent',
    EMBEDDING_PROVIDER: 'none',
    WAL_MAX_MB: String(LIMIT_MB),
  })
  t = await createTestApp({ deps: await createDeps(config) })
})

afterAll(async () => {
  await t?.close()
  rmSync(dir, { recursive: true, force: true })
})

const segments = () => readdirSync(join(dir, 'pglite', 'pg_wal')).filter((name) => /^[0-9A-F]{24}$/.test(name))

/** Distinct prose, so every document adds postings: ~6 KB each. */
function documentBody(n: number): string {
  const words: string[] = []
  for (let i = 0; i < 900; i++) words.push(`w${(n * 7919 + i * 104_729) % 50_000}`)
  return words.join(' ')
}

test('ingesting several times the bound: the log is checkpointed and recycled, never above WAL_MAX_MB', async () => {
  const user = await t.signUp()
  const initial = new Set(segments())
  let highest = 0
  const sampler = setInterval(() => {
    highest = Math.max(highest, walBytes(join(dir, 'pglite')))
  }, 20)

  const [begin] = await queryRows<{ start: string }>(t.deps.db, sql`select pg_current_wal_insert_lsn()::text as start`)
  const start = begin!.start
  let written = 0
  try {
    for (let batch = 0; written < 4 * LIMIT_MB * 1024 * 1024; batch++) {
      const documents = Array.from({ length: 200 }, (_, i) => ({ title: `doc ${batch}-${i}`, body: documentBody(batch * 200 + i) }))
      const res = await t.json('POST', '/api/documents/bulk', { key: user.key, body: { documents } })
      expect(res.status).toBe(200)
      expect(res.body.results.filter((r: { status: number }) => r.status === 201)).toHaveLength(documents.length)
      const [row] = await queryRows<{ n: string }>(
        t.deps.db,
        sql`select pg_wal_lsn_diff(pg_current_wal_insert_lsn(), ${start}::pg_lsn)::int8::text as n`,
      )
      written = Number(row!.n)
    }
    // The last checkpoint may still be waiting for its turn.
    await Bun.sleep(1_500)
  } finally {
    clearInterval(sampler)
  }

  expect(written).toBeGreaterThan(4 * LIMIT_MB * 1024 * 1024)
  expect(highest).toBeGreaterThan(0)
  expect(highest).toBeLessThanOrEqual(LIMIT_MB * 1024 * 1024)
  // Recycled: the segments the directory started with are gone or renamed for reuse.
  expect(segments().filter((name) => initial.has(name)).length).toBeLessThan(initial.size)
  expect(t.deps.databaseStorage!.sizes().lastCheckpointAt).not.toBeNull()

  const health = await t.json('GET', '/')
  expect(health.status).toBe(200)
  expect(health.body.storage).toEqual({
    data_dir_bytes: expect.any(Number),
    wal_bytes: expect.any(Number),
    wal_limit_bytes: LIMIT_MB * 1024 * 1024,
    last_checkpoint_at: expect.any(String),
  })
  expect(health.body.storage.wal_bytes).toBeLessThanOrEqual(LIMIT_MB * 1024 * 1024)
  expect(health.body.storage.data_dir_bytes).toBeGreaterThan(health.body.storage.wal_bytes)
})

test('on DATA_DIR the buffer pool is SHARED_BUFFERS_MB, not the 128 MB initdb writes: all of it is resident from the start', async () => {
  const [row] = await queryRows<{ value: string }>(t.deps.db, sql`select current_setting('shared_buffers') as value`)
  expect(row!.value).toBe(`${SHARED_BUFFERS_MB}MB`)
})

test('in memory and on PostgreSQL there is no data directory to report', async () => {
  const inMemory = await createTestApp({ env: { EMBEDDING_PROVIDER: 'none' } })
  try {
    const health = await inMemory.json('GET', '/')
    expect(health.body.storage).toBeNull()
  } finally {
    await inMemory.close()
  }
})
