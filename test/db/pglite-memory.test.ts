// An in-memory PGlite whose files grow by half at a time (db/pglite-memory.ts) keeps every byte it writes: a table
// and its index written well past the sizes where a file is grown again, checkpointed, then read back — also from
// a clone, which is made from the files themselves.
import { describe, expect, test } from 'bun:test'
import { PGlite } from '@electric-sql/pglite'
import { isInMemoryPglite, tuneInMemoryPglite } from '../../db/pglite-memory'

const digest = async (pglite: PGlite) =>
  (
    await pglite.query<{ n: number; h: string }>(
      `select count(*)::int as n, md5(string_agg(v, ',' order by id)) as h from t where id = any(array(select generate_series(1, 60000)))`,
    )
  ).rows[0]!

describe('PGlite in memory, tuned', () => {
  test('what it writes past many growths of its files reads back the same, before and after a checkpoint and in a clone', async () => {
    const pglite = await PGlite.create()
    expect(isInMemoryPglite(pglite)).toBe(true)
    await tuneInMemoryPglite(pglite)
    expect((await pglite.query<{ wal_init_zero: string }>('show wal_init_zero')).rows[0]!.wal_init_zero).toBe('off')
    await pglite.exec('create table t (id int primary key, v text not null)')
    // ~6 MB of heap, an index, and WAL segments enough to need new ones: each file grows past 1 MiB many times.
    for (let i = 0; i < 3; i++)
      await pglite.exec(
        `insert into t select g, md5(g::text) || repeat(md5((g * 7)::text), 2) from generate_series(${i * 20000 + 1}, ${(i + 1) * 20000}) g`,
      )
    const written = await digest(pglite)
    expect(written.n).toBe(60000)
    const expected = (
      await pglite.query<{ h: string }>(
        `select md5(string_agg(md5(g::text) || repeat(md5((g * 7)::text), 2), ',' order by g)) as h from generate_series(1, 60000) g`,
      )
    ).rows[0]!.h
    expect(written.h).toBe(expected)
    await pglite.exec('checkpoint')
    expect(await digest(pglite)).toEqual(written)
    const clone = await pglite.clone()
    expect(await digest(clone)).toEqual(written)
    await clone.close()
    await pglite.close()
  })

  test('an instance on a data directory is not in memory', async () => {
    const dir = `${(await import('node:os')).tmpdir()}/pglite-memory-${crypto.randomUUID()}`
    const pglite = await PGlite.create({ dataDir: dir })
    expect(isInMemoryPglite(pglite)).toBe(false)
    await pglite.close()
    ;(await import('node:fs')).rmSync(dir, { recursive: true, force: true })
  })
})
