// `bun run fuzz`: schemathesis (pinned, test/fuzz/schemathesis.ts) against the service it starts on a random
// port, every check on, bounded in time; exits non-zero on any finding. .ci/run runs it after the test suites.
//   bun run fuzz [--max-time SECONDS] [--seed N] [--workers N] [other `st run` arguments, e.g. --include-path /api/search]
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startFuzzChild } from '../http/fuzz/child'
import type { Actor } from '../http/fuzz/fixtures'
import { installSchemathesis, SCHEMATHESIS_VERSION } from './schemathesis'

// Bun hands a script its arguments without the `--` that separates ours from schemathesis's, so parseArgs
// cannot tell them apart: our three options are read here, and every other argument goes to `st run` as given.
const OURS = ['max-time', 'seed', 'workers'] as const
const values: Record<(typeof OURS)[number], string> = {
  'max-time': process.env.FUZZ_MAX_TIME ?? '150',
  seed: process.env.FUZZ_SEED ?? '16',
  workers: '2',
}
const positionals: string[] = []
for (let i = 2; i < Bun.argv.length; i++) {
  const arg = Bun.argv[i]!
  const [name, inline] = arg.startsWith('--') ? arg.slice(2).split(/=(.*)/s) : []
  const ours = OURS.find((o) => o === name)
  if (ours) values[ours] = inline ?? Bun.argv[++i] ?? ''
  else positionals.push(arg)
}

const CONFIG = new URL('./schemathesis.toml', import.meta.url).pathname
/** Findings accepted for now, each with its `why`: what no schema can say (a signature, a server setting, a
 * rule across fields), and the few still OPEN. A finding that is not in it fails the run. */
const BASELINE = new URL('./baseline.json', import.meta.url).pathname
const baseline = (await Bun.file(BASELINE).json()) as { entries: { operation: string; why: string }[] }
const open = baseline.entries.filter((e) => e.why.startsWith('OPEN'))

interface Run {
  label: string
  /** Whose credentials it sends. */
  actor: Actor
  args: string[]
}

const st = installSchemathesis()
console.log(`schemathesis ${SCHEMATHESIS_VERSION} (${st.pythonPath})`)
// The service with every integration pointed at a local fake, its fixtures made through the API, and the job
// worker running: the server of test/http/openapi-fuzz.test.ts (embedded PGlite, the hash embedder).
const server = await startFuzzChild()
const f = server.f
// Where schemathesis writes its reports and its example database: never in the repository.
const scratch = mkdtempSync(join(tmpdir(), 'memory-fuzz-'))

// Destructive operations would end the credentials the run fuzzes with, so each runs alone as a user of its
// own, without the stateful phase: DELETE /api/account (after its first success every answer is a documented
// 401), and DELETE /api/keys/{id} (the stateful phase would hand it the key in use from GET /api/keys).
// Sign-out declares no security, so it is sent no session to end.
const alone = ['--phases', 'examples,coverage,fuzzing', '--max-time', '15']
const runs: Run[] = [
  {
    label: 'every operation',
    actor: f.a,
    args: ['--exclude-path', '/api/account', '--exclude-path', '/api/keys/{id}', '--max-time', values['max-time']],
  },
  { label: 'DELETE /api/keys/{id}', actor: f.signer, args: ['--include-path', '/api/keys/{id}', ...alone] },
  { label: 'DELETE /api/account', actor: f.deleter, args: ['--include-path', '/api/account', ...alone] },
]

const summaries: string[] = []
let failed = false
try {
  for (const run of runs) {
    console.log(`\n== schemathesis: ${run.label} (as ${run.actor.email})`)
    const args = [
      ...st.command,
      '--config-file',
      CONFIG,
      'run',
      `${f.url}/openapi/json`,
      '--checks',
      'all',
      '--workers',
      values.workers,
      '--seed',
      values.seed,
      '--max-examples',
      '50',
      '--request-timeout',
      '30',
      '--generation-database',
      'none',
      '--report',
      'junit',
      '--report-dir',
      join(scratch, run.label.replace(/\W+/g, '-')),
      '--no-color',
      '--baseline',
      BASELINE,
      ...run.args,
      ...positionals,
    ]
    const child = Bun.spawn(args, {
      cwd: scratch,
      stdout: 'pipe',
      stderr: 'inherit',
      env: { ...process.env, PYTHONPATH: st.pythonPath, FUZZ_KEY: run.actor.key, FUZZ_SESSION: run.actor.cookie.replace(/^session=/, '') },
    })
    let output = ''
    const decoder = new TextDecoder()
    const reader = child.stdout.getReader()
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      const text = decoder.decode(chunk.value, { stream: true })
      output += text
      process.stdout.write(text)
    }
    const code = await child.exited
    // The closing line, e.g. "==== 3 failures, 1 warning in 150.2s ====" or "==== 1234 passed in 150.0s ====".
    const last =
      output
        .trim()
        .split('\n')
        .filter((l) => /^=+ .* =+$/.test(l.trim()))
        .pop()
        ?.replace(/^=+ | =+$/g, '') ?? `exit ${code}`
    summaries.push(`${run.label}: ${last}${code === 0 ? '' : ` (exit ${code})`}`)
    if (code !== 0) failed = true
  }
  const exited = server.exited()
  if (exited !== null) {
    summaries.push(`the server process exited with code ${exited} during the run`)
    failed = true
  }
} finally {
  await server.stop()
  rmSync(scratch, { recursive: true, force: true })
}

summaries.push(
  `accepted in test/fuzz/baseline.json: ${baseline.entries.length} findings, ${open.length} of them still open (${open.map((e) => e.operation).join('; ')})`,
)
console.log(`\nschemathesis ${SCHEMATHESIS_VERSION}: ${failed ? 'FAILED' : 'passed'}\n${summaries.map((s) => `  ${s}`).join('\n')}`)
process.exit(failed ? 1 : 0)
