// The local model's own process (src/embedding/inference-process.ts), on the tiny fixture model: it runs apart from
// the API at lower priority, comes back after a real kill with the service still answering, and never outlives
// the service — closed with the deps, gone after SIGTERM, and gone even when the server itself is SIGKILLed.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { embedDocuments, embedQuery } from '../../src/embedding/embeddings'
import { createTestApp, type TestApp } from '../harness'
import { cosine } from '../jobs/jobs.fixtures'
import { removeTempDataDirs, startService, tempDataDir } from '../ops/processes'

setDefaultTimeout(60_000)

const MODELS = join(import.meta.dir, '../fixtures/models')
const ENV = { EMBEDDING_PROVIDER: 'local', EMBEDDING_MODEL: 'fixture/bge-tiny-en', EMBEDDING_MODEL_PATH: MODELS }

const alive = (pid: number) => existsSync(`/proc/${pid}`) && !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
/** Field 19 of /proc/<pid>/stat: the process's nice value. */
const niceOf = (pid: number) =>
  Number(
    readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /, '')
      .split(' ')[16],
  )

/** Polls until `check` holds (the test's own timeout bounds it). */
async function until(check: () => boolean | Promise<boolean>) {
  while (!(await check())) await Bun.sleep(20)
}

let t: TestApp
beforeAll(async () => {
  t = await createTestApp({ env: ENV })
})
afterAll(async () => {
  await t?.close()
  removeTempDataDirs()
})

describe('the inference process', () => {
  test('runs apart from the API, at the configured lower priority (EMBEDDING_NICE, 10 by default)', async () => {
    const pid = t.deps.embedder!.inference!.pid()!
    expect(pid).not.toBe(process.pid)
    expect(alive(pid)).toBe(true)
    expect(niceOf(pid) - niceOf(process.pid)).toBe(10)
  })

  test('killed, it is restarted: the service keeps answering and the next calls are embedded as before', async () => {
    const inference = t.deps.embedder!.inference!
    const [before] = await embedDocuments(t.deps.embedder!, ['apple banana fruit food'])
    const killed = inference.pid()!
    process.kill(killed, 'SIGKILL')
    await until(() => !alive(killed))
    // Whether the restart is under way or done, the API answers and GET / still has the model.
    const health = await t.json('GET', '/')
    expect(health.status).toBe(200)
    expect(health.body.embeddings).toMatchObject({ available: true, provider: 'local' })
    // A call made while it restarts waits for the new process.
    const [after] = await embedDocuments(t.deps.embedder!, ['apple banana fruit food'])
    expect(cosine(after!, before!)).toBeCloseTo(1, 5)
    expect(inference.pid()).not.toBe(killed)
    expect(alive(inference.pid()!)).toBe(true)
    expect(await embedQuery(t.deps.embedder!, 'fruit')).toHaveLength(32)
  })

  test('calls sent while it was down are all answered, in order, by the new process', async () => {
    const inference = t.deps.embedder!.inference!
    const texts = Array.from({ length: 70 }, (_, i) => (i % 2 ? 'the river and the sea' : 'apple banana fruit food'))
    const killed = inference.pid()!
    process.kill(killed, 'SIGKILL')
    const vectors = await embedDocuments(t.deps.embedder!, texts)
    expect(vectors).toHaveLength(70)
    for (let i = 2; i < 70; i++) expect(cosine(vectors[i]!, vectors[i % 2]!)).toBeCloseTo(1, 5)
    expect(inference.pid()).not.toBe(killed)
  })

  test('closing the deps ends it; a call after that fails saying so', async () => {
    const other = await createTestApp({ env: ENV })
    const embedder = other.deps.embedder!
    const pid = embedder.inference!.pid()!
    expect(alive(pid)).toBe(true)
    await other.close()
    await until(() => !alive(pid))
    expect(embedDocuments(embedder, ['apple'])).rejects.toThrow('the embedding model has been closed')
  })
})

describe('a server process with the local model', () => {
  const start = async () => {
    const server = await startService({ ...ENV, DATA_DIR: tempDataDir() })
    const loaded = JSON.parse(await server.waitFor(/"message":"embedding model loaded"/))
    expect(loaded.pid).toBeGreaterThan(0)
    expect(loaded.pid).not.toBe(server.pid)
    expect(alive(loaded.pid)).toBe(true)
    return { server, inferencePid: loaded.pid as number }
  }

  test('stopped with SIGTERM, it leaves no inference process behind', async () => {
    const { server, inferencePid } = await start()
    server.proc.kill('SIGTERM')
    expect(await server.exited).toBe(0)
    await until(() => !alive(inferencePid))
  })

  test('killed with SIGKILL (no shutdown code runs), its inference process still exits', async () => {
    const { server, inferencePid } = await start()
    server.proc.kill('SIGKILL')
    await server.exited
    await until(() => !alive(inferencePid))
  })
})
