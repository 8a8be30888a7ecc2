// `bun run test`: the whole suite as a few `bun test` processes, two at a time. One process for every file
// held each closed app's embedded Postgres (WebAssembly memory the collector neither counts nor returns) and
// grew past 20 GB before it was killed; a process per group starts clean, and two use both cores. Each group's
// output is printed when it ends; its counts come from the JUnit report it writes (--reporter=junit), not from
// its text. The totals end the output in `bun test`'s own words (" N pass", " N fail"), and with
// TEST_SUMMARY_FILE set they are also written there as JSON ({ passed, failed, skipped, todo, files }), which
// .ci/run reads. With arguments (`bun run test test/search`), it is plain `bun test` on them; with
// `--only DIR...`, the grouped run over the files under those folders. With TEST_DATABASE=postgres, one real
// PostgreSQL is started here and shared by every group (each test process makes its own databases on it).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Glob } from 'bun'
import { readJunitReport } from './junit'

const TIMEOUT = ['--timeout', '30000']
const args = process.argv.slice(2)
const only = args[0] === '--only' ? args.slice(1).map((dir) => dir.replace(/^\.\//, '').replace(/\/$/, '')) : null
if (args.length && !only)
  process.exit(await Bun.spawn(['bun', 'test', ...TIMEOUT, ...args], { stdio: ['inherit', 'inherit', 'inherit'] }).exited)

const GROUPS = Number(process.env.TEST_GROUPS ?? 8)
const PARALLEL = Number(process.env.TEST_PARALLEL ?? 2)

const root = `${import.meta.dir}/..`
const files: string[] = []
for (const dir of ['src', 'test'])
  for await (const path of new Glob('**/*.test.{ts,tsx}').scan({ cwd: `${root}/${dir}` })) files.push(`./${dir}/${path}`)
files.sort()
if (only) files.splice(0, files.length, ...files.filter((f) => only.some((dir) => f.startsWith(`./${dir}/`))))

const env = { ...process.env }
if (env.TEST_DATABASE === 'postgres' && !env.TEST_POSTGRES_URL) {
  const { startPostgres } = await import('./pg/server')
  const server = await startPostgres()
  env.TEST_POSTGRES_URL = server.url // stopped by its watchdog when this process exits
}
// Browser, real-model, fuzz, generated-client and Python-client files are the slow ones: dealt out first, round robin, so every group gets its share.
const slow = (f: string) => /browser|real-model|extension\.e2e|fuzz|wire|concurrency|generated-clients|python-clients/.test(f)
const ordered = [...files.filter(slow), ...files.filter((f) => !slow(f))]
const groups: string[][] = Array.from({ length: Math.min(GROUPS, files.length) }, () => [])
ordered.forEach((f, i) => groups[i % groups.length]!.push(f))

const totals = { pass: 0, fail: 0, skip: 0, todo: 0, tests: 0, failedGroups: [] as number[] }
const reports = mkdtempSync(join(tmpdir(), 'run-suites-'))
const started = performance.now()
let next = 0
async function runGroups() {
  while (next < groups.length) {
    const index = next++
    const group = groups[index]!
    const report = join(reports, `group-${index + 1}.xml`)
    const child = Bun.spawn(['bun', 'test', ...TIMEOUT, '--reporter=junit', `--reporter-outfile=${report}`, ...group], {
      cwd: root,
      stdout: 'pipe',
      stderr: 'pipe',
      env,
    })
    const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
    const counts = await readJunitReport(report, group)
    // A file of a failed group that is not in its report never ran its tests: it failed to load, or the process
    // died (then there is no report at all). Each counts as one failure. (A file with no test at all is not in
    // the report either; in a group that passed it counts for nothing.)
    const unreported = code === 0 ? [] : counts.missing
    const fail = counts.fail + unreported.length + (code !== 0 && counts.fail + unreported.length === 0 ? 1 : 0)
    totals.pass += counts.pass
    totals.fail += fail
    totals.skip += counts.skip
    totals.todo += counts.todo
    totals.tests += counts.pass + counts.fail + counts.skip + counts.todo
    if (code !== 0) totals.failedGroups.push(index + 1)
    const notes = unreported.length ? `; not in its report: ${unreported.join(', ')}` : ''
    process.stdout.write(
      `\n=== group ${index + 1}/${groups.length} (${group.length} files): ${counts.pass} pass, ${fail} fail, exit ${code}${notes} ===\n${out + err}`,
    )
  }
}
await Promise.all(Array.from({ length: PARALLEL }, runGroups))

rmSync(reports, { recursive: true, force: true })

console.log(
  `\n${groups.length} groups, ${PARALLEL} at a time, ${((performance.now() - started) / 1000).toFixed(0)} s${totals.failedGroups.length ? `; groups that failed: ${totals.failedGroups.join(', ')}` : ''}`,
)
console.log(
  ` ${totals.pass} pass\n ${totals.skip} skip\n ${totals.todo} todo\n ${totals.fail} fail\nRan ${totals.tests} tests across ${files.length} files.`,
)
const summary = { passed: totals.pass, failed: totals.fail, skipped: totals.skip, todo: totals.todo, files: files.length }
if (process.env.TEST_SUMMARY_FILE) await Bun.write(process.env.TEST_SUMMARY_FILE, JSON.stringify(summary) + '\n')
process.exit(totals.failedGroups.length ? 1 : 0)
