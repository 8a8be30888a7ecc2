// Tools the tests install once into a cache (PostgreSQL, schemathesis, the generated client's and the Python
// clients' dependencies): built in a scratch folder beside their place and renamed into it only when complete, so
// an interrupted install never looks done and is simply made again.
import { spawnSync } from 'bun'
import { mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'

/**
 * `target`, made by `fill(scratch)` the first time (`done` says whether a folder is complete). `fill` answers
 * null, or why it failed; the answer is null when `target` is there, else that reason.
 */
export function installOnce(target: string, done: (dir: string) => boolean, fill: (scratch: string) => string | null): string | null {
  if (done(target)) return null
  mkdirSync(dirname(target), { recursive: true, mode: 0o755 })
  const scratch = mkdtempSync(join(dirname(target), '.install-'))
  try {
    const failure = fill(scratch)
    if (failure !== null) return failure
    if (!done(scratch)) return 'the install finished but is incomplete'
    rmSync(target, { recursive: true, force: true })
    renameSync(scratch, target)
    return null
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}

/** Runs a command quietly; null when it succeeded, else its last lines of stderr (or how it ended). */
export function run(args: string[], lines = 1): string | null {
  const result = spawnSync(args, { stdout: 'pipe', stderr: 'pipe', env: { ...process.env, PIP_ROOT_USER_ACTION: 'ignore' } })
  if (result.exitCode === 0) return null
  if (result.exitCode === null) return 'not found'
  return result.stderr.toString().trim().split('\n').slice(-lines).join(' | ') || `exit ${result.exitCode}`
}

/** `python -m pip install`, quietly: what follows is its arguments. */
export const pipInstall = (python: string) => [python, '-m', 'pip', 'install', '--quiet', '--disable-pip-version-check']

/** `python -m pip install --target <dir> <packages>`; null or why it failed. */
export const pipInstallInto = (python: string, dir: string, packages: string[], options: string[] = []) =>
  run([...pipInstall(python), ...options, '--target', dir, ...packages])
