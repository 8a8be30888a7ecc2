// Every SQL function and trigger is defined once, in db/functions/, and applied after the migrations: a database
// upgraded from an older release ends with exactly what a fresh one has, data kept exact, and the keyword trigger
// fires on the very fields the in-memory copies read. On PGlite, and on PostgreSQL with TEST_DATABASE=postgres.
import { afterAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import type { PGlite } from '@electric-sql/pglite'
import { sql } from 'drizzle-orm'
import type { PgliteDatabase } from 'drizzle-orm/pglite'
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator'
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js'
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator'
import postgres from 'postgres'
import { createDb, openPglite, queryRows, type Database } from '../../db/client'
import { runMigrations } from '../../db/migrate'
import { DOCUMENT_FIELD_COLUMNS } from '../../src/retrieval/document-fields'
import { migratedTemplate } from '../harness'
import { createTestDatabase, onPostgres, type TestDatabase } from '../pg/databases'

setDefaultTimeout(120_000)

const ROOT = join(import.meta.dir, '..', '..')
/** The last release whose migrations still defined the functions and triggers, each restating the one before
 * (commit a40f94f, kept here so that a clone without history tests too): its journal, and those of its SQL files
 * that differ from db/migrations' — the others are read from db/migrations. */
const OLD_RELEASE = join(import.meta.dir, 'old-release', 'migrations')

const scratch: string[] = []
const opened: { database: Database; test?: TestDatabase }[] = []
afterAll(async () => {
  for (const { database, test } of opened) {
    await database.close()
    await test?.drop()
  }
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true })
})

/** db/migrations as OLD_RELEASE had them, its journal cut after `upTo` (a tag prefix such as '0020'): an old release's data directory. */
function oldMigrations(upTo: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'memory-old-migrations-'))
  scratch.push(dir)
  const folder = join(dir, 'migrations')
  cpSync(OLD_RELEASE, folder, { recursive: true })
  const journalPath = join(folder, 'meta', '_journal.json')
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { tag: string }[] }
  for (const { tag } of journal.entries)
    if (!existsSync(join(folder, `${tag}.sql`))) cpSync(join(ROOT, 'db', 'migrations', `${tag}.sql`), join(folder, `${tag}.sql`))
  const last = journal.entries.findIndex((entry) => entry.tag.startsWith(upTo))
  if (last < 0) throw new Error(`no migration ${upTo} in the old release`)
  writeFileSync(journalPath, JSON.stringify({ ...journal, entries: journal.entries.slice(0, last + 1) }))
  return folder
}

/** An empty database, or one migrated by the old migrations in `folder`. */
async function databaseAt(folder: string | null): Promise<{ database: Database; url: string | null }> {
  if (onPostgres) {
    const test = await createTestDatabase({ migrated: false })
    const database = await createDb({ dataDir: 'memory://', databaseUrl: test.url }, { poolSize: 2 })
    opened.push({ database, test })
    if (folder) {
      const client = postgres(test.url, { max: 1, onnotice: () => {} })
      await migratePostgres(drizzlePostgres(client), { migrationsFolder: folder })
      await client.end()
    }
    return { database, url: test.url }
  }
  const database = await createDb({ dataDir: 'memory://', databaseUrl: null }, { pglite: await openPglite('memory://') })
  opened.push({ database })
  if (folder) await migratePglite(database.db as unknown as PgliteDatabase, { migrationsFolder: folder })
  return { database, url: null }
}

/** A database migrated fresh by this release: a clone of the test template. */
async function freshDatabase(): Promise<{ database: Database; url: string | null }> {
  if (onPostgres) {
    const test = await createTestDatabase()
    const database = await createDb({ dataDir: 'memory://', databaseUrl: test.url }, { poolSize: 2 })
    opened.push({ database, test })
    return { database, url: test.url }
  }
  const database = await createDb(
    { dataDir: 'memory://', databaseUrl: null },
    { pglite: (await (await migratedTemplate()).clone()) as PGlite },
  )
  opened.push({ database })
  return { database, url: null }
}

let fresh: ReturnType<typeof definitions> | undefined

/** What db/ defines: each `function name` or `trigger name` with the files defining it. */
function definedInDb(): Map<string, string[]> {
  const files = (readdirSync(join(ROOT, 'db'), { recursive: true }) as string[])
    .filter((file) => /\.(sql|ts)$/.test(file) && !file.startsWith(join('migrations', 'meta')))
    .map((file) => join(ROOT, 'db', file))
  const defined = new Map<string, string[]>()
  for (const file of files) {
    for (const match of readFileSync(file, 'utf8').matchAll(/create\s+(?:or\s+replace\s+)?(function|trigger)\s+(\w+)/gi)) {
      const name = `${match[1]!.toLowerCase()} ${match[2]}`
      defined.set(name, [...(defined.get(name) ?? []), relative(ROOT, file)])
    }
  }
  return defined
}

/** The functions and triggers of the public schema, as PostgreSQL would restate them. */
async function definitions(database: Database) {
  const functions = await queryRows<{ name: string; definition: string }>(
    database.db,
    sql`select p.proname as name, pg_get_functiondef(p.oid) as definition from pg_proc p
        where p.pronamespace = 'public'::regnamespace and p.prokind = 'f'
          and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e') order by 1`,
  )
  const triggers = await queryRows<{ name: string; definition: string }>(
    database.db,
    sql`select tgname as name, pg_get_triggerdef(oid) as definition from pg_trigger where not tgisinternal order by 1`,
  )
  return { functions, triggers }
}

/** A user with three documents, written through whatever triggers the schema of the moment has. */
async function addDocuments(database: Database, user: string) {
  const workspace = crypto.randomUUID()
  await database.db.execute(sql`insert into users (id, email, plan) values (${user}, ${`${user}@example.com`}, 'free')`)
  await database.db.execute(sql`insert into workspaces (id, user_id, name) values (${workspace}, ${user}, 'Inbox')`)
  await database.db.execute(sql`insert into documents (id, user_id, workspace_id, title, excerpt, body, kind, status, source, content_hash, size_bytes, keyword_len)
    select gen_random_uuid(), ${user}, ${workspace}, 'Note ' || n, '', 'body', 'note', 'active', 'api', md5(n::text), 100 * n, 10 * n
      from generate_series(1, 3) n`)
}

/** Postings of the user's first document, and its terms listed as the old release listed them (no tfs). */
async function addPostings(database: Database, user: string, tfs: Record<string, number>) {
  const terms = Object.keys(tfs)
  const [doc] = await queryRows<{ id: string }>(database.db, sql`select id from documents where user_id = ${user} order by id limit 1`)
  for (const term of terms)
    await database.db.execute(
      sql`insert into postings (user_id, term, document_id, tf, dl) values (${user}, ${term}, ${doc!.id}, ${tfs[term]!}, 6.5)`,
    )
  await database.db.execute(
    sql`insert into document_terms (document_id, user_id, terms) values (${doc!.id}, ${user}, ${`{${terms.join(',')}}`}::text[])`,
  )
}

/** The user's postings as "term tf dl doc_no", the document they name checked to be the user's first. */
async function postingsOf(database: Database, user: string): Promise<string[]> {
  const rows = await queryRows<{ posting: string }>(
    database.db,
    sql`select p.term || ' ' || p.tf || ' ' || p.dl || ' ' || p.doc_no as posting from postings p
        where p.user_id = ${user} and p.document_id = (select id from documents where user_id = ${user} order by id limit 1)
        order by p.term`,
  )
  return rows.map((r) => r.posting)
}

const listedTfs = (database: Database, user: string) =>
  queryRows<{ terms: string[]; tfs: number[] }>(database.db, sql`select terms, tfs from document_terms where user_id = ${user}`)

/** A chunk with a vector (model 'm') for one of the user's documents, as the embedding worker writes it; answers the document. */
async function addEmbeddedChunk(database: Database, user: string): Promise<string> {
  const [chunk] = await queryRows<{ document_id: string }>(
    database.db,
    sql`insert into chunks (id, user_id, document_id, workspace_id, ordinal, start_offset, content, embedding, embedding_model)
        select gen_random_uuid(), user_id, id, workspace_id, 0, 0, 'body', '[1,0,0]', 'm' from documents where user_id = ${user}
         order by id limit 1
        returning document_id`,
  )
  return chunk!.document_id
}

/** The user's version now (keyword_stats.version). */
const versionOf = async (database: Database, user: string) =>
  Number((await queryRows<{ v: number }>(database.db, sql`select version::float8 as v from keyword_stats where user_id = ${user}`))[0]!.v)

/** What index_changes_since answers from `since`, for the keyword index (no model) or model 'm''s vectors. */
async function changesSince(database: Database, user: string, since: number, model: string | null) {
  const [row] = await queryRows<{ version: number; complete: boolean; changed: string | null; chunk_documents: string | null }>(
    database.db,
    sql`select r_version::float8 as version, r_complete as complete, r_changed as changed, r_chunk_documents as chunk_documents
          from index_changes_since(${user}, ${since}, ${model}, 100)`,
  )
  return {
    version: Number(row!.version),
    complete: row!.complete,
    changed: row!.changed === null ? null : (JSON.parse(row!.changed) as string[]),
    chunks: row!.chunk_documents?.split(' ') ?? [],
  }
}

/** keyword_stats' and storage_totals' counts for the user, against what the documents say. */
async function totals(database: Database, user: string) {
  const [row] = await queryRows<Record<string, number>>(
    database.db,
    sql`select (select documents from keyword_stats where user_id = ${user}) as keyword_documents,
               (select total_len from keyword_stats where user_id = ${user})::float8 as total_len,
               (select documents from storage_totals where user_id = ${user}) as stored_documents,
               (select bytes from storage_totals where user_id = ${user})::float8 as bytes,
               (select count(*) filter (where keyword_len > 0) from documents where user_id = ${user})::int as expected_keyword_documents,
               (select coalesce(sum(keyword_len), 0) from documents where user_id = ${user})::float8 as expected_total_len,
               (select count(*) from documents where user_id = ${user})::int as expected_stored_documents,
               (select coalesce(sum(size_bytes), 0) from documents where user_id = ${user})::float8 as expected_bytes`,
  )
  return row!
}

function expectExact(t: Record<string, number>) {
  expect({ documents: t.keyword_documents, total_len: t.total_len, stored: t.stored_documents, bytes: t.bytes }).toEqual({
    documents: t.expected_keyword_documents,
    total_len: t.expected_total_len,
    stored: t.expected_stored_documents,
    bytes: t.expected_bytes,
  })
}

describe('SQL functions are kept once', () => {
  test('no function or trigger is defined more than once anywhere in db/, and every one of them in db/functions', () => {
    const defined = definedInDb()
    expect([...defined].filter(([, where]) => where.length > 1)).toEqual([])
    const outside = [...defined].filter(
      ([name, [where]]) => !where!.startsWith('db/functions/') && name !== 'function db_functions_applied',
    )
    expect(outside).toEqual([])
  })

  test('the keyword trigger fires on exactly the document fields the in-memory copies read, and the catch-up brings those fields', async () => {
    const { database } = await freshDatabase()
    const [trigger] = await queryRows<{ columns: string[] }>(
      database.db,
      sql`select array(select a.attname::text from unnest(t.tgattr::int2[]) n join pg_attribute a on a.attrelid = t.tgrelid and a.attnum = n
                 order by 1) as columns
            from pg_trigger t where t.tgname = 'documents_keyword_stats'`,
    )
    // Besides the fields: a re-index (keyword_len, which every one sets) and a change of owner.
    expect(trigger!.columns).toEqual([...DOCUMENT_FIELD_COLUMNS, 'keyword_len', 'user_id'].sort())

    const user = crypto.randomUUID()
    await addDocuments(database, user)
    // The one catch-up function, as the keyword index (no model: postings) and a vector index (a model) call it.
    const [changes] = await queryRows<{ keyword: string; vector: string }>(
      database.db,
      sql`select (select r_current from index_changes_since(${user}, 0, null, 100)) as keyword,
                 (select r_current from index_changes_since(${user}, 0, 'none', 100)) as vector`,
    )
    const keys = (json: string) => Object.keys((JSON.parse(json) as object[])[0]!).sort()
    expect(keys(changes!.keyword)).toEqual(['id', ...DOCUMENT_FIELD_COLUMNS, 'terms', 'tfs', 'dl'].sort())
    expect(keys(changes!.vector)).toEqual(['id', ...DOCUMENT_FIELD_COLUMNS, 'terms', 'tfs', 'dl'].sort())
    // And a change of each of them moves the version a copy compares, and says which document moved it.
    const [document] = await queryRows<{ id: string }>(database.db, sql`select id from documents where user_id = ${user} limit 1`)
    const version = () => versionOf(database, user)
    for (const column of [...DOCUMENT_FIELD_COLUMNS, 'keyword_len']) {
      const before = await version()
      await database.db.execute(sql`update documents set ${sql.identifier(column)} = ${sql.identifier(column)} where id = ${document!.id}`)
      expect({ column, moved: (await version()) - before }).toEqual({ column, moved: 1 })
    }
  })

  test('a write of chunk vectors moves the same version into the same log: the vector index reads the document again, the keyword index only moves past it', async () => {
    const { database } = await freshDatabase()
    const user = crypto.randomUUID()
    await addDocuments(database, user)
    const before = await versionOf(database, user)

    const embedded = await addEmbeddedChunk(database, user)
    expect(await versionOf(database, user)).toBe(before + 1)
    expect(await changesSince(database, user, before, null)).toEqual({ version: before + 1, complete: true, changed: [], chunks: [] })
    expect(await changesSince(database, user, before, 'm')).toEqual({
      version: before + 1,
      complete: true,
      changed: [embedded],
      chunks: [embedded],
    })

    // A field written after it: both indexes read that document.
    await database.db.execute(sql`update documents set pinned = true where id = ${embedded}`)
    expect(await changesSince(database, user, before + 1, null)).toEqual({
      version: before + 2,
      complete: true,
      changed: [embedded],
      chunks: [],
    })
    expect((await changesSince(database, user, before, 'm')).changed).toEqual([embedded])
  })

  test('an index cached before the upgrade: at the old keyword version it reloads, at the old sum of both versions it is exact', async () => {
    const old = await databaseAt(oldMigrations('0044'))
    const user = crypto.randomUUID()
    await addDocuments(old.database, user)
    await addEmbeddedChunk(old.database, user)
    const [was] = await queryRows<{ version: number; embedding_version: number }>(
      old.database.db,
      sql`select version::float8 as version, embedding_version::float8 as embedding_version from keyword_stats where user_id = ${user}`,
    )
    const keyword = Number(was!.version)
    const sum = keyword + Number(was!.embedding_version)
    expect(sum).toBeGreaterThan(keyword)
    await runMigrations(old.database, old.url)

    expect(await versionOf(old.database, user)).toBe(sum)
    // A keyword index at `keyword` finds the log empty from there (its old rows were not carried over): it reloads.
    expect((await changesSince(old.database, user, keyword, null)).complete).toBe(false)
    // A vector index labelled with the sum is exact: nothing to read.
    expect(await changesSince(old.database, user, sum, 'm')).toEqual({ version: sum, complete: true, changed: [], chunks: [] })
    // And the next write is logged: a catch-up from the new version works.
    await old.database.db.execute(sql`update documents set rating = 1 where user_id = ${user} and title = 'Note 2'`)
    const after = await changesSince(old.database, user, sum, null)
    expect({ complete: after.complete, changed: after.changed?.length }).toEqual({ complete: true, changed: 1 })
  })

  for (const upTo of ['0003', '0020', '0044']) {
    test(`a data directory of migration ${upTo} of the old release, upgraded, has exactly a fresh one's functions and triggers, its counts still exact`, async () => {
      const old = await databaseAt(oldMigrations(upTo))
      const user = crypto.randomUUID()
      await addDocuments(old.database, user)
      // A document's listed terms (0031 on): after the upgrade each carries its tf from the postings, in the terms' order.
      const listed = upTo >= '0031'
      if (listed) await addPostings(old.database, user, { zebra: 3, apple: 1, mango: 2.5 })
      await runMigrations(old.database, old.url)
      if (listed) expect(await listedTfs(old.database, user)).toEqual([{ terms: ['zebra', 'apple', 'mango'], tfs: [3, 1, 2.5] }])
      // Its postings, now in blocks: the same terms, tfs and length, under the document's new number.
      if (listed) expect(await postingsOf(old.database, user)).toEqual(['apple 1 6.5 1', 'mango 2.5 6.5 1', 'zebra 3 6.5 1'])

      fresh ??= freshDatabase().then(({ database }) => definitions(database))
      const upgraded = await definitions(old.database)
      expect(upgraded).toEqual(await fresh)
      // Nothing a migration once defined is left over: each is one of db/functions (or the step's marker).
      const names = [...upgraded.functions.map((f) => `function ${f.name}`), ...upgraded.triggers.map((t) => `trigger ${t.name}`)]
      expect(names.sort()).toEqual([...definedInDb().keys()].sort())

      // The old per-row insert trigger was replaced, not left beside the per-statement one: no document counted twice.
      await addDocuments(old.database, crypto.randomUUID())
      await old.database.db.execute(
        sql`insert into documents (id, user_id, workspace_id, title, excerpt, body, kind, status, source, content_hash, size_bytes, keyword_len)
            select gen_random_uuid(), user_id, workspace_id, 'More', '', 'body', 'note', 'active', 'api', 'x', 7, 3 from documents where user_id = ${user} limit 1`,
      )
      await old.database.db.execute(
        sql`update documents set keyword_len = keyword_len + 1, size_bytes = size_bytes + 1 where user_id = ${user}`,
      )
      await old.database.db.execute(sql`delete from documents where user_id = ${user} and title = 'Note 1'`)
      expectExact(await totals(old.database, user))
    })
  }

  test('a second run applies nothing; a database a newer release migrated keeps that release’s functions', async () => {
    const { database, url } = await freshDatabase()
    const applied = await definitions(database)
    await runMigrations(database, url)
    expect(await definitions(database)).toEqual(applied)

    // A newer release's migration, and its own version of a trigger (here: none).
    await database.db.execute(sql`drop trigger documents_keep_version on documents`)
    await database.db.execute(
      sql`create or replace function db_functions_applied() returns text language sql immutable as $$ select 'newer' $$`,
    )
    await database.db.execute(sql`insert into drizzle.__drizzle_migrations (hash, created_at) values ('newer', 99999999999999)`)
    await runMigrations(database, url)
    const names = async () => (await definitions(database)).triggers.map((t) => t.name)
    expect(await names()).not.toContain('documents_keep_version')

    // Back on this release's migrations, this release's functions are applied again.
    await database.db.execute(sql`delete from drizzle.__drizzle_migrations where hash = 'newer'`)
    await runMigrations(database, url)
    expect(await definitions(database)).toEqual(applied)
  })
})
