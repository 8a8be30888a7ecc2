// `bun run check:layers` refuses what ARCHITECTURE.md forbids: the repo's own dependency-cruiser config run
// over small trees laid out like src/, one clean and one per kind of violation.
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

const repo = join(import.meta.dir, '../..')
const made: string[] = []
afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })))

/** What `check:layers` says of a tree: its exit code and each violation as `rule: importing file`. */
async function check(files: Record<string, string>): Promise<{ code: number; found: string[] }> {
  const root = mkdtempSync(join(tmpdir(), 'layers-'))
  made.push(root)
  writeFileSync(
    join(root, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'ESNext', moduleResolution: 'bundler', verbatimModuleSyntax: true } }),
  )
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), text)
  }
  // The command of package.json's check:layers, run in the tree.
  const cli = join(repo, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs')
  const run = Bun.spawn(
    [process.execPath, '--bun', cli, 'src', '--config', join(repo, '.dependency-cruiser.cjs'), '--output-type', 'err'],
    { cwd: root, stdout: 'pipe', stderr: 'pipe' },
  )
  const [out, code] = await Promise.all([new Response(run.stdout).text(), run.exited])
  return { code, found: [...out.matchAll(/error ([\w-]+): (\S+)/g)].map((m) => `${m[1]}: ${m[2]}`).sort() }
}

/** The violations of a tree that must fail the check. */
async function violations(files: Record<string, string>): Promise<string[]> {
  const { code, found } = await check(files)
  expect(code).not.toBe(0)
  return found
}

// One room per layer, each importing the one below it: what the code looks like when it follows the rule.
const clean = {
  'src/index.ts': "import { routes } from './modules/notes/notes.routes'\nexport const app = routes\n",
  'src/modules/notes/notes.routes.ts': "import { listNotes } from './notes.service'\nexport const routes = listNotes\n",
  'src/modules/notes/notes.service.ts':
    "import { rank } from '../../retrieval/rank'\nimport type { Deps } from '../../deps'\nexport const listNotes = (deps: Deps) => rank(deps.size)\n",
  'src/retrieval/rank.ts': "import { clamp } from '../lib/clamp'\nexport const rank = (n: number) => clamp(n)\n",
  'src/lib/clamp.ts': 'export const clamp = (n: number) => Math.max(0, n)\n',
  'src/deps.ts': "import type { Ranker } from './retrieval/ranker'\nexport interface Deps { size: number; ranker?: Ranker }\n",
  'src/retrieval/ranker.ts': 'export interface Ranker { rank(n: number): number }\n',
}

describe('check:layers', () => {
  test('passes a tree whose imports all point down', async () => {
    expect(await check(clean)).toEqual({ code: 0, found: [] })
  })

  test('fails on an import cycle, a type-only one included', async () => {
    const found = await violations({
      ...clean,
      'src/lib/clamp.ts':
        "import type { Bounds } from './bounds'\nexport const clamp = (n: number, b?: Bounds) => Math.max(b?.low ?? 0, n)\n",
      'src/lib/bounds.ts': "import { clamp } from './clamp'\nexport interface Bounds { low: number }\nexport const floor = clamp\n",
    })
    // One violation for the cycle, named from whichever of its files the cruise met first.
    expect(found).toEqual([expect.stringMatching(/^no-cycle: src\/lib\/(bounds|clamp)\.ts$/)])
  })

  test('fails on an import up a layer: an engine reaching into a service, a service into an HTTP plugin', async () => {
    const found = await violations({
      ...clean,
      'src/retrieval/rank.ts':
        "import type { Deps } from '../deps'\nimport { clamp } from '../lib/clamp'\nexport const rank = (n: number) => clamp(n)\nexport { listNotes } from '../modules/notes/notes.service'\nexport type { Deps }\n",
      'src/modules/notes/notes.service.ts':
        "import type { Deps } from '../../deps'\nimport { etagOf } from '../../http/etag'\nexport const listNotes = (deps: Deps) => etagOf(deps.size)\n",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the fixture is a source file holding a template literal
      'src/http/etag.ts': 'export const etagOf = (n: number) => `"${n}"`\n',
    })
    expect(found).toEqual(['engines-imports-services: src/retrieval/rank.ts', 'services-imports-edge: src/modules/notes/notes.service.ts'])
  })

  test('fails when the Deps contract imports code that runs, or browser and server code meet', async () => {
    const found = await violations({
      ...clean,
      'src/deps.ts': "import { rank } from './retrieval/rank'\nexport interface Deps { size: number; rank?: typeof rank }\n",
      'src/web/client/main.tsx': "import { clamp } from '../../lib/clamp'\nexport const x = clamp(1)\n",
    })
    expect(found).toEqual(['browser-apart: src/web/client/main.tsx', 'deps-types-only: src/deps.ts'])
  })

  test('fails on a file no layer names, so a new folder cannot slip past the rules', async () => {
    const found = await violations({
      ...clean,
      'src/billing/charge.ts': "import { clamp } from '../lib/clamp'\nexport const charge = clamp(1)\n",
    })
    expect(found).toEqual(['in-a-layer: src/billing/charge.ts'])
  })
})
