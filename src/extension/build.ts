// `bun run build:extension`: bundles the extension with Bun's bundler into dist/extension (load unpacked) and dist/extension.zip.
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { ICON_SIZES, iconFile, iconPng } from './icon'
import { zip } from './zip'

const SOURCE = import.meta.dir
const ROOT = join(SOURCE, '../..')
/** Each one a classic script (IIFE): service workers, event pages and injected files all take those. */
const ENTRIES = ['background.ts', 'popup.ts', 'options.ts', 'capture.ts']
const STATIC = ['popup.html', 'options.html', 'styles.css']

export interface BuiltExtension {
  dir: string
  zipPath: string
}

export async function buildExtension(outDir = join(ROOT, 'dist/extension')): Promise<BuiltExtension> {
  await rm(outDir, { recursive: true, force: true })
  await mkdir(outDir, { recursive: true })
  const result = await Bun.build({
    entrypoints: ENTRIES.map((e) => join(SOURCE, e)),
    outdir: outDir,
    target: 'browser',
    format: 'iife',
    naming: '[name].[ext]',
    // Readable output: a store reviewer can read what runs, and nothing is evaluated from strings.
    minify: false,
    sourcemap: 'none',
  })
  if (!result.success) throw new AggregateError(result.logs, 'extension build failed')
  const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string }
  const manifest = JSON.parse(await readFile(join(SOURCE, 'manifest.json'), 'utf8'))
  manifest.version = pkg.version
  // The icons are drawn here (icon.ts), so the repository holds no image files that could drift from the favicon.
  const icons = Object.fromEntries(ICON_SIZES.map((size) => [String(size), iconFile(size)]))
  manifest.icons = icons
  manifest.action.default_icon = Object.fromEntries(ICON_SIZES.filter((size) => size <= 32).map((size) => [String(size), iconFile(size)]))
  for (const size of ICON_SIZES) await writeFile(join(outDir, iconFile(size)), iconPng(size))
  await writeFile(join(outDir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n')
  for (const file of STATIC) await writeFile(join(outDir, file), await readFile(join(SOURCE, file)))
  const zipPath = `${outDir}.zip`
  const names = (await readdir(outDir)).sort()
  await writeFile(
    zipPath,
    zip(await Promise.all(names.map(async (name) => ({ name, data: new Uint8Array(await readFile(join(outDir, name))) })))),
  )
  return { dir: outDir, zipPath }
}

if (import.meta.main) {
  const built = await buildExtension(process.argv[2])
  console.log(`extension built: ${relative(process.cwd(), built.dir)}/ (load unpacked) and ${relative(process.cwd(), built.zipPath)}`)
}
