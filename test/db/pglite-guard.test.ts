// The embedded database fails loudly, never silently and never by hanging, when its WebAssembly backend
// breaks: JSON nested far deeper than the edge allows exhausts the engine's stack inside Postgres, and PGlite
// alone would answer that INSERT with no row and then spin forever on the next error (reproduced 5/5).
import { describe, expect, test } from 'bun:test'
import { PGlite } from '@electric-sql/pglite'
import { sql } from 'drizzle-orm'
import { vector } from '@electric-sql/pglite-pgvector'
import { guardPglite, DatabaseCrashedError } from '../../db/pglite-guard'
import { createTestApp } from '../harness'

const nested = (depth: number) => '['.repeat(depth) + '1' + ']'.repeat(depth)

/** Rejects with what the query threw, or with 'hung' when it has not settled within `ms`. */
function settle(query: Promise<unknown>, ms = 5_000): Promise<unknown> {
  return Promise.race([
    query.then(
      () => 'answered',
      (error) => error,
    ),
    Bun.sleep(ms).then(() => 'hung'),
  ])
}

describe('the guard of the embedded database', () => {
  test('a statement that crashes Postgres fails, and so does every later one, at once: nothing hangs', async () => {
    const pglite = await PGlite.create({ extensions: { vector } })
    const guard = guardPglite(pglite)
    const crashes: string[] = []
    guard.onCrash((reason) => crashes.push(reason))
    await pglite.exec('create table t (id int, m jsonb)')

    const insert = await settle(pglite.query('insert into t values (1, $1::jsonb) returning id', [nested(100_000)]))
    expect(insert).toBeInstanceOf(DatabaseCrashedError)
    expect(guard.crashed).toContain('Maximum call stack size exceeded')
    expect(crashes).toHaveLength(1)

    // Unguarded, this division by zero never returns and blocks the event loop.
    expect(await settle(pglite.query('select 1/0'))).toBeInstanceOf(DatabaseCrashedError)
    expect(await settle(pglite.query('select 1'))).toBeInstanceOf(DatabaseCrashedError)
    expect(await settle(pglite.transaction((tx) => tx.query('select 1')))).toBeInstanceOf(DatabaseCrashedError)
    expect(crashes).toHaveLength(1)
  })

  test('errors Postgres handles itself are not crashes: the database goes on', async () => {
    const pglite = await PGlite.create()
    const guard = guardPglite(pglite)
    await pglite.exec('create table t (id int primary key)')
    await pglite.exec('insert into t values (1)')
    await expect(pglite.query('insert into t values (1)')).rejects.toThrow(/duplicate key/)
    await expect(pglite.query('select 1/0')).rejects.toThrow(/division by zero/)
    await expect(pglite.query("select 'a\\u0000b'::jsonb")).rejects.toThrow()
    expect((await pglite.query<{ n: number }>('select count(*)::int as n from t')).rows[0]!.n).toBe(1)
    expect(guard.crashed).toBeNull()
    await pglite.close()
  })

  test('through the service: once the database has crashed, requests answer 503 with { error } instead of hanging', async () => {
    const t = await createTestApp()
    const u = await t.signUp({ withKey: true })
    // Crash it the only way left: below the edge, straight into the driver.
    await settle(t.deps.db.execute(sql.raw(`select '${nested(100_000)}'::jsonb`)))
    expect(t.deps.databaseGuard?.crashed).not.toBeNull()
    const res = await Promise.race([t.json('GET', '/api/documents', { key: u.key }), Bun.sleep(5_000).then(() => null)])
    expect(res).not.toBeNull()
    expect(res!.status).toBe(503)
    expect(res!.body).toEqual({ error: expect.stringMatching(/database/), code: 'service_unavailable' })
    await t.close()
  })
})
