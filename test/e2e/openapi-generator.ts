// openapi-generator, the most used client generator (a Java program), for the tests: its pinned CLI jar from
// Maven Central, and the dependencies of the python client it generates (pip, from PyPI), each installed once
// into a cache as test/pg/server.ts installs PostgreSQL: test tools, never dependencies of the service.
import { spawnSync } from 'bun'
import { existsSync, mkdirSync, renameSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { installOnce, pipInstallInto } from '../cached-install'

export const GENERATOR_VERSION = '7.25.0'
/** Maven Central's published SHA-1 of the jar: a download that differs is refused. */
const GENERATOR_SHA1 = '56a9bb79e3bb565f477eddca2c6daa288a9c6f35'
const GENERATOR_URL = `https://repo1.maven.org/maven2/org/openapitools/openapi-generator-cli/${GENERATOR_VERSION}/openapi-generator-cli-${GENERATOR_VERSION}.jar`

/** What the generated python client's requirements.txt asks for, pinned. */
export const PYTHON_CLIENT_DEPENDENCIES = [
  'pydantic==2.12.5',
  'urllib3==2.8.0',
  'python-dateutil==2.9.0.post0',
  'typing-extensions==4.15.0',
]

/** Root's cache is /var/cache (as for PostgreSQL), anyone else's ~/.cache; MEMORY_OPENAPI_GENERATOR_HOME overrides. */
export function generatorHome(): string {
  if (process.env.MEMORY_OPENAPI_GENERATOR_HOME) return process.env.MEMORY_OPENAPI_GENERATOR_HOME
  if (process.getuid?.() === 0) return '/var/cache/memory-openapi-generator'
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'memory-openapi-generator')
}

const inCi = (env: Record<string, string | undefined>) => ['true', '1', 'yes'].includes((env.CI ?? '').trim().toLowerCase())

/** Why the generator cannot run here, or null. Under CI=true a missing Java is a failure, not a skip. */
export function javaMissing(env: Record<string, string | undefined> = process.env): string | null {
  const java = spawnSync(['sh', '-c', 'command -v java >/dev/null && java -version'], { stdout: 'ignore', stderr: 'ignore' })
  if (java.exitCode === 0) return null
  const reason = 'no `java` on PATH (apt-get install -y openjdk-17-jre-headless)'
  if (inCi(env)) throw new Error(`CI=true and ${reason}: the openapi-generator clients cannot be generated`)
  console.warn(`skipping the openapi-generator tests: ${reason} (under CI=true this fails the run)`)
  return reason
}

/** The path of the CLI jar, downloaded first if it is not in the cache. */
export async function installGenerator(): Promise<string> {
  const jar = join(generatorHome(), `openapi-generator-cli-${GENERATOR_VERSION}.jar`)
  if (existsSync(jar)) return jar
  mkdirSync(generatorHome(), { recursive: true })
  const res = await fetch(GENERATOR_URL)
  if (!res.ok) throw new Error(`could not download openapi-generator-cli ${GENERATOR_VERSION}: ${res.status} from ${GENERATOR_URL}`)
  const bytes = new Uint8Array(await res.arrayBuffer())
  const sha1 = new Bun.CryptoHasher('sha1').update(bytes).digest('hex')
  if (sha1 !== GENERATOR_SHA1) throw new Error(`openapi-generator-cli ${GENERATOR_VERSION}: SHA-1 ${sha1}, expected ${GENERATOR_SHA1}`)
  // Into a scratch name first, so an interrupted download never looks complete.
  const scratch = `${jar}.${process.pid}.partial`
  await Bun.write(scratch, bytes)
  renameSync(scratch, jar)
  return jar
}

export interface PythonClientRuntime {
  python: string
  /** PYTHONPATH holding the dependencies (the --target folder). */
  pythonPath: string
}

/** "3.11" when `python` runs and is at least 3.10 (the generated client's floor); else null. */
function usable(python: string): string | null {
  const run = spawnSync([python, '-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { stdout: 'pipe', stderr: 'ignore' })
  const version = run.exitCode === 0 ? run.stdout.toString().trim() : ''
  return /^3\.\d+$/.test(version) && Number(version.split('.')[1]) >= 10 ? version : null
}

/** A Python with the python client's dependencies, installed with pip into the cache unless they are there. */
export function installPythonClientDependencies(): PythonClientRuntime {
  const tried: string[] = []
  for (const python of ['python3.13', 'python3.12', 'python3.11', 'python3.10', 'python3']) {
    const version = usable(python)
    if (!version) {
      tried.push(`${python}: not found, or older than 3.10`)
      continue
    }
    // pydantic-core is compiled per Python version.
    const target = join(generatorHome(), `python-client-${GENERATOR_VERSION}-py${version}`)
    const failure = installOnce(
      target,
      (dir) => existsSync(join(dir, 'pydantic')),
      (scratch) => pipInstallInto(python, scratch, [...PYTHON_CLIENT_DEPENDENCIES]),
    )
    if (failure !== null) {
      tried.push(`${python}: ${failure}`)
      continue
    }
    return { python, pythonPath: target }
  }
  throw new Error(`could not install the python client's dependencies with pip into ${generatorHome()} (${tried.join('; ')})`)
}

export interface Generated {
  generator: string
  /** The generator's exit code and the end of what it printed, for a failure to show. */
  code: number
  output: string
  dir: string
}

/** Runs openapi-generator's `generate` on a document file, without the docs and tests it would also write. */
export async function generateClient(
  jar: string,
  document: string,
  generator: string,
  dir: string,
  extra: string[] = [],
): Promise<Generated> {
  const child = Bun.spawn(
    [
      'java',
      '-jar',
      jar,
      'generate',
      '--input-spec',
      document,
      '--generator-name',
      generator,
      '--output',
      dir,
      '--global-property',
      'apiTests=false,modelTests=false,apiDocs=false,modelDocs=false',
      ...extra,
    ],
    { stdout: 'pipe', stderr: 'pipe' },
  )
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  // Its log is long (thousands of lines): on a failure, the lines that say why.
  const why = `${out}\n${err}`.split('\n').filter((l) => /ERROR|Exception|not yet supported/.test(l) && !/^\s+at /.test(l))
  return { generator, code, output: code === 0 ? '' : why.slice(0, 20).join('\n'), dir }
}
