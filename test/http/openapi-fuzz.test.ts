// The service's own fuzz: every operation of /openapi/json gets malformed requests over real HTTP, and none may
// answer 5xx, hang, drop the connection or give a 4xx without `{ error }`; the server and its data survive it.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { dereference } from '../e2e/document'
import { startFuzzChild, type FuzzChild } from './fuzz/child'
import { apiOf, type Fixtures } from './fuzz/fixtures'
import { acceptedReport, failureReport, histogram, runVariants, type Outcome } from './fuzz/runner'
import { variantsOf, type Operation, type Variant } from './fuzz/variants'
import { seededRandom } from '../seeded-random'

setDefaultTimeout(110_000)

/** At most this many variants per operation, picked by a seeded PRNG so every run sends the same requests. */
const PER_OPERATION = 120
const SEED = 0x10f022
/** Every operation is fuzzed; none is skipped. OAuth starts and callbacks answer 302 to the provider or the
 * app, which is fine: only 5xx, hangs and 4xx without `{ error }` fail. The Stripe webhook verifies a
 * signature the fuzz cannot make, so it answers 400, and must: it still may not 5xx on any body. */
const SKIPPED: Record<string, string> = {}
/** Narrows the run while debugging, e.g. FUZZ_FILTER='POST /api/documents ' or FUZZ_FILTER='deep'. */
const FILTER = process.env.FUZZ_FILTER ? new RegExp(process.env.FUZZ_FILTER) : null

let server: FuzzChild
let f: Fixtures
let operations: Operation[] = []
let outcomes: Outcome[] = []

beforeAll(async () => {
  // The server runs in a child process: one whose event loop is stuck must not freeze the test's own timers.
  server = await startFuzzChild()
  f = server.f
  // Schemas are shared by $ref; the variants are made from them inline.
  const doc = dereference(await (await fetch(`${f.url}/openapi/json`)).json()) as { paths: Record<string, Record<string, Operation['op']>> }
  operations = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ method, path, op })))
})
afterAll(() => server.stop())

/** The same `max` of `variants` on every run, in their original order. */
function sample(variants: Variant[], max: number, random: () => number): Variant[] {
  if (variants.length <= max) return variants
  const keyed = variants.map((v, i) => ({ v, i, k: random() }))
  return keyed
    .sort((a, b) => a.k - b.k)
    .slice(0, max)
    .sort((a, b) => a.i - b.i)
    .map(({ v }) => v)
}

describe('OpenAPI fuzz', () => {
  test('no operation answers a malformed request with a 5xx, a hang, a dropped connection or a 4xx without { error }', async () => {
    const random = seededRandom(SEED).next
    const fuzzed = operations.filter(({ method, path }) => !SKIPPED[`${method.toUpperCase()} ${path}`])
    const variants = fuzzed
      .flatMap((op) => sample(variantsOf(f, op), PER_OPERATION, random))
      .filter((v) => !FILTER || FILTER.test(`${v.op} ${v.cls} ${v.name}`))
    expect(fuzzed.length).toBeGreaterThan(60)

    const started = performance.now()
    outcomes = await runVariants(f.url, variants, { concurrency: 4, timeoutMs: 10_000, maxTimeouts: 2 })
    const seconds = ((performance.now() - started) / 1000).toFixed(1)
    const failures = failureReport(outcomes)
    console.log(
      `openapi fuzz: ${outcomes.length} requests, ${fuzzed.length} operations, ${seconds} s; statuses ${histogram(outcomes)}; ${outcomes.filter((o) => o.problem).length} failures`,
    )
    const exited = server.exited()
    if (exited !== null) failures.unshift(`the server process exited with code ${exited} during the run`)
    if (failures.length) console.log(`openapi fuzz failures (${failures.length} groups):\n${failures.join('\n')}`)
    const accepted = acceptedReport(outcomes)
    if (accepted.length) console.log(`accepted although the schema forbids it (${accepted.length}; not failures):\n${accepted.join('\n')}`)
    expect(failures).toEqual([])
  })

  test('afterwards the server still answers, ingest and search still work, and no fixture was lost', async () => {
    const api = apiOf(f.url)
    expect((await api('GET', '/')).status).toBe(200)
    const ingested = await api('POST', '/api/documents', {
      actor: f.a,
      body: { workspace_id: f.ids.workspace, title: 'After the fuzz', body: 'The axolotl survived the fuzz run.' },
    })
    expect(ingested.status).toBe(201)
    for (const mode of ['keyword', 'hybrid']) {
      const found = await api('GET', `/api/search?q=axolotl&mode=${mode}&workspace_id=${f.ids.workspace}`, { actor: f.a })
      expect({ mode, status: found.status }).toEqual({ mode, status: 200 })
      expect(found.body.results.map((hit: { document: { id: string } }) => hit.document.id)).toContain(ingested.body.id)
    }
    // Data integrity: `DELETE /api/documents/$DOC/links/%2e%2e` once deleted $DOC itself.
    for (const id of [f.ids.doc, f.ids.linkedDoc])
      expect({ id, status: (await api('GET', `/api/documents/${id}`, { actor: f.a })).status }).toEqual({ id, status: 200 })
    expect((await api('GET', `/api/documents/${f.other.doc}`, { actor: f.b })).status).toBe(200)
    const workspaces = await api('GET', '/api/workspaces', { actor: f.a })
    expect(workspaces.body.data.map((w: { id: string }) => w.id)).toContain(f.ids.workspace)
    expect((await api('GET', `/api/conversations/${f.ids.conversation}`, { actor: f.a })).status).toBe(200)
    expect((await api('GET', `/api/connectors/${f.ids.connector}`, { actor: f.a })).status).toBe(200)
  })
})
