// The served /openapi/json through the two linters generator users run: Redocly's recommended rules and
// Spectral's spectral:oas ruleset, both with zero errors (Redocly's warnings are printed: redirects without a 2xx,
// the health check without a 4xx, /api/connectors/connections/{id} beside /api/connectors/{id}/sync).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fetchDocument } from './document'
import { startServer, type E2EServer } from './server'

const BIN = new URL('../../node_modules/.bin/', import.meta.url).pathname

let server: E2EServer
let dir: string
let file: string

beforeAll(async () => {
  server = await startServer()
  dir = await mkdtemp(join(tmpdir(), 'openapi-lint-'))
  file = join(dir, 'openapi.json')
  await Bun.write(file, JSON.stringify(await fetchDocument(server.url), null, 2))
})
afterAll(async () => {
  await server.stop()
  await rm(dir, { recursive: true, force: true })
})

async function run(args: string[]): Promise<string> {
  const child = Bun.spawn(args, {
    cwd: dir,
    stdout: 'pipe',
    stderr: 'pipe',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', NO_COLOR: '1' },
  })
  const [out] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  return out
}

describe('OpenAPI document under the linters', () => {
  test('redocly lint (recommended rules): no errors', async () => {
    const report = JSON.parse(await run([`${BIN}redocly`, 'lint', file, '--format=json'])) as {
      totals: { errors: number; warnings: number }
      problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[]
    }
    const errors = report.problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`)
    console.log(
      `redocly: ${report.totals.errors} errors, ${report.totals.warnings} warnings (${[...new Set(report.problems.map((p) => p.ruleId))].join(', ')})`,
    )
    expect(errors).toEqual([])
    expect(report.totals.errors).toBe(0)
  }, 60_000)

  test('spectral lint (spectral:oas): no errors, and no warnings but the missing contact', async () => {
    await Bun.write(join(dir, '.spectral.yaml'), 'extends: ["spectral:oas"]\n')
    const results = JSON.parse(
      await run([`${BIN}spectral`, 'lint', file, '--ruleset', join(dir, '.spectral.yaml'), '--format', 'json', '--quiet']),
    ) as {
      code: string
      severity: number
      message: string
      path: string[]
    }[]
    const errors = results.filter((r) => r.severity === 0).map((r) => `${r.code} ${r.path.join('.')}: ${r.message}`)
    console.log(
      `spectral: ${errors.length} errors, ${results.filter((r) => r.severity === 1).length} warnings (${[...new Set(results.map((r) => r.code))].join(', ')})`,
    )
    expect(errors).toEqual([])
    // Its warnings too, but for the contact a self-hosted service has none to give: every operation described, every tag declared.
    expect(results.filter((r) => r.code !== 'info-contact').map((r) => `${r.code} ${r.path.join('.')}`)).toEqual([])
  }, 60_000)
})
