// A full disk under DATA_DIR stops writes with a clear 507 and nothing else: reads keep working, and freeing space
// resumes writes without a restart. A real small file system (tmpfs, mounted here: root only) holds the data
// directory; a file filling it plays the rest of the disk.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, statfsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnSync } from 'bun'
import { loadConfig } from '../../src/config'
import { createDeps } from '../../src/create-deps'
import { BASE, createTestApp, type TestApp } from '../harness'

setDefaultTimeout(120_000)

const MB = 1024 * 1024
const mountPoint = mkdtempSync(join(tmpdir(), 'memory-disk-'))
const mounted = spawnSync(['mount', '-t', 'tmpfs', '-o', 'size=320m', 'tmpfs', mountPoint]).exitCode === 0
if (!mounted) console.warn('disk-full tests skipped: mounting a tmpfs needs root (CAP_SYS_ADMIN)')

afterAll(() => {
  if (mounted) spawnSync(['umount', '-l', mountPoint])
  rmSync(mountPoint, { recursive: true, force: true })
})

const free = () => {
  const s = statfsSync(mountPoint)
  return Number(s.bavail) * Number(s.bsize)
}
/** Fills the file system until `leave` bytes are free. */
function fill(name: string, leave: number): string {
  const path = join(mountPoint, name)
  const size = Math.max(0, free() - leave)
  expect(spawnSync(['fallocate', '-l', String(size), path]).exitCode).toBe(0)
  return path
}

async function appOn(dir: string, reserveMb: number): Promise<TestApp> {
  mkdirSync(dir, { recursive: true })
  const config = loadConfig({
    DATA_DIR: dir,
    BASE_URL: BASE,
    LOG_LEVEL: 'silent',
    EMBEDDING_PROVIDER: 'none',
    WAL_MAX_MB: '128',
    DISK_RESERVE_MB: String(reserveMb),
  })
  return createTestApp({ deps: await createDeps(config) })
}

describe.skipIf(!mounted)('the disk holding DATA_DIR fills up', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await appOn(join(mountPoint, 'reserve'), 64)
  })
  afterAll(() => t?.close())

  test('down to the reserve: writes are a 507 saying so, reads work, and freeing space resumes writes', async () => {
    const user = await t.signUp()
    const kept = await t.json('POST', '/api/documents', {
      key: user.key,
      body: { title: 'Before', body: 'written before the disk filled' },
    })
    expect(kept.status).toBe(201)

    const filler = fill('filler', 32 * MB)
    await Bun.sleep(1_100) // the free space is measured at most once a second
    const refused = await t.json('POST', '/api/documents', { key: user.key, body: { title: 'During', body: 'refused' } })
    expect(refused.status).toBe(507)
    expect(refused.body).toEqual({
      error: expect.stringMatching(
        /^the disk holding the service's data is nearly full \(\d+ MB free, 64 MB kept for reads\): nothing was written/,
      ),
      code: 'insufficient_storage',
    })
    // Reads, with what they write on their way (the key's use, the month's count), keep working.
    const list = await t.json('GET', '/api/documents', { key: user.key })
    expect(list.status).toBe(200)
    expect(list.body.data.map((d: { title: string }) => d.title)).toEqual(['Before'])
    expect((await t.json('GET', '/api/search?q=disk', { key: user.key })).status).toBe(200)
    expect((await t.json('GET', `/api/documents/${kept.body.id}`, { key: user.key })).status).toBe(200)

    rmSync(filler)
    await Bun.sleep(1_100)
    const resumed = await t.json('POST', '/api/documents', {
      key: user.key,
      body: { title: 'After', body: 'written once space was freed' },
    })
    expect(resumed.status).toBe(201)
    expect(t.deps.databaseGuard?.crashed).toBeNull()
  })
})

describe.skipIf(!mounted)('the disk full to the last byte (no reserve)', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await appOn(join(mountPoint, 'none'), 0)
  })
  afterAll(() => t?.close())

  test("a write that cannot grow the database's files: 507, nothing half-written, the service keeps running", async () => {
    const user = await t.signUp()
    const before = await t.json('GET', '/api/documents', { key: user.key })
    const filler = fill('filler-none', 0)
    const documents = Array.from({ length: 50 }, (_, i) => ({ title: `big ${i}`, body: `${'word '.repeat(40_000)}${i}` }))
    const res = await t.json('POST', '/api/documents/bulk', { key: user.key, body: { documents } })
    rmSync(filler)
    expect(res.status).toBe(507)
    expect(res.body).toEqual({
      error: expect.stringMatching(/^the disk holding the service's data is full: nothing was written/),
      code: 'insufficient_storage',
    })
    expect(t.deps.databaseGuard?.crashed).toBeNull()
    const after = await t.json('GET', '/api/documents', { key: user.key })
    expect(after.status).toBe(200)
    expect(after.body.data.length).toBe(before.body.data.length)
    expect((await t.json('POST', '/api/documents', { key: user.key, body: { body: 'room again' } })).status).toBe(201)
  })
})
