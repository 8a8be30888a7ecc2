// The pinned schemathesis (PyPI), installed with pip into a cache once, as test/pg/server.ts installs its
// PostgreSQL wheel: a test tool that runs the fuzz, never a dependency of the service.
import { spawnSync } from 'bun'
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'

export const SCHEMATHESIS_VERSION = '4.32.5'

/** Where it is installed; MEMORY_FUZZ_HOME overrides. */
function fuzzHome(): string {
  if (process.env.MEMORY_FUZZ_HOME) return process.env.MEMORY_FUZZ_HOME
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'memory-fuzz')
}

export interface Schemathesis {
  python: string
  /** The command line that runs `st`: [python, path/to/st]. */
  command: string[]
  /** PYTHONPATH for that command (the --target folder). */
  pythonPath: string
}

/** Installs schemathesis==SCHEMATHESIS_VERSION unless it is there, and says how to run it. */
export function installSchemathesis(): Schemathesis {
  const target = join(fuzzHome(), `schemathesis-${SCHEMATHESIS_VERSION}`)
  const tried: string[] = []
  for (const python of ['python3', 'python']) {
    if (spawnSync([python, '--version'], { stdout: 'ignore', stderr: 'ignore' }).exitCode !== 0) {
      tried.push(`${python}: not found`)
      continue
    }
    const ready = () => existsSync(join(target, 'bin', 'st')) && existsSync(join(target, 'schemathesis'))
    if (!ready()) {
      mkdirSync(fuzzHome(), { recursive: true })
      // Into a scratch folder first, so an interrupted install never looks complete.
      const scratch = mkdtempSync(join(fuzzHome(), '.install-'))
      const args = [python, '-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--target', scratch, `schemathesis==${SCHEMATHESIS_VERSION}`]
      const run = spawnSync(args, { stdout: 'pipe', stderr: 'pipe', env: { ...process.env, PIP_ROOT_USER_ACTION: 'ignore' } })
      if (run.exitCode === 0 && existsSync(join(scratch, 'bin', 'st'))) {
        rmSync(target, { recursive: true, force: true })
        renameSync(scratch, target)
      } else {
        rmSync(scratch, { recursive: true, force: true })
        tried.push(`${python}: ${run.stderr.toString().trim().split('\n').pop() ?? `exit ${run.exitCode}`}`)
        continue
      }
    }
    return { python, command: [python, join(target, 'bin', 'st')], pythonPath: target }
  }
  throw new Error(`could not install schemathesis==${SCHEMATHESIS_VERSION} with pip into ${target} (${tried.join('; ')})`)
}
