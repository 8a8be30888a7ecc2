// The pinned schemathesis (PyPI), installed with pip into a cache once, as test/pg/server.ts installs its
// PostgreSQL wheel: a test tool that runs the fuzz, never a dependency of the service.
import { spawnSync } from 'bun'
import { existsSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { installOnce, pipInstallInto } from '../cached-install'

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

/** Pythons to try, newest first: 3.11 before 3.11.8 fails hypothesis with "AST constructor recursion depth
 * mismatch" (CPython gh-106905) on some of the document's schemas. FUZZ_PYTHON names one; pyenv's installed
 * versions are looked at too, as their shims hide all but the global one. */
function pythons(): string[] {
  const found = ['python3.13', 'python3.12', 'python3', 'python']
  const pyenv = spawnSync(['sh', '-c', 'command -v pyenv >/dev/null && pyenv root'], { stdout: 'pipe', stderr: 'ignore' })
    .stdout.toString()
    .trim()
  if (pyenv) {
    const versions = spawnSync(['ls', join(pyenv, 'versions')], { stdout: 'pipe', stderr: 'ignore' })
      .stdout.toString()
      .split('\n')
      .filter((v) => /^3\.\d+\.\d+$/.test(v))
    const newest = versions.sort((a, b) => Bun.semver.order(b, a))
    found.unshift(...newest.map((v) => join(pyenv, 'versions', v, 'bin', 'python3')))
  }
  return process.env.FUZZ_PYTHON ? [process.env.FUZZ_PYTHON] : found
}

/** "3.13" when `python` runs and is at least 3.9 (schemathesis' floor) and not 3.11.0–3.11.7; else null. */
function usable(python: string): string | null {
  const run = spawnSync([python, '-c', 'import sys; print("%d.%d.%d" % sys.version_info[:3])'], { stdout: 'pipe', stderr: 'ignore' })
  const version = run.exitCode === 0 ? run.stdout.toString().trim() : ''
  if (!/^3\.\d+\.\d+$/.test(version) || Bun.semver.order(version, '3.9.0') < 0) return null
  if (Bun.semver.satisfies(version, '>=3.11.0 <3.11.8')) return null
  return version.split('.').slice(0, 2).join('.')
}

/** Installs schemathesis==SCHEMATHESIS_VERSION for the newest usable Python unless it is there, and says how to run it. */
export function installSchemathesis(): Schemathesis {
  const tried: string[] = []
  for (const python of pythons()) {
    const version = usable(python)
    if (!version) {
      tried.push(`${python}: not found, or a version it cannot run on`)
      continue
    }
    // Compiled dependencies (jsonschema_rs) are built per Python version.
    const target = join(fuzzHome(), `schemathesis-${SCHEMATHESIS_VERSION}-py${version}`)
    const failure = installOnce(
      target,
      (dir) => existsSync(join(dir, 'bin', 'st')),
      (scratch) => pipInstallInto(python, scratch, [`schemathesis==${SCHEMATHESIS_VERSION}`]),
    )
    if (failure !== null) {
      tried.push(`${python}: ${failure}`)
      continue
    }
    return { python, command: [python, join(target, 'bin', 'st')], pythonPath: target }
  }
  throw new Error(`could not install schemathesis==${SCHEMATHESIS_VERSION} with pip into ${fuzzHome()} (${tried.join('; ')})`)
}
