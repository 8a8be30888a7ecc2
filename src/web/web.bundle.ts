// The dashboard's client code bundled by Bun's own bundler, in memory, once per process: content-hashed
// assets (gzipped beside the plain bytes) and the HTML shell that loads them. Nothing is written to disk.
import { gzipSync } from 'bun'

const ENTRY = new URL('./client/main.tsx', import.meta.url).pathname

export interface Asset {
  body: Uint8Array<ArrayBuffer>
  gzip: Uint8Array<ArrayBuffer>
  type: string
}

export interface Bundle {
  /** The HTML every /app path answers with: no inline script or style, only hashed assets of this origin. */
  shell: string
  /** By file name (`main-<hash>.js`), as linked from the shell under /app/assets/. */
  assets: Map<string, Asset>
}

let building: Promise<Bundle> | undefined

/** The bundle, built on first use and kept; a failed build is not kept, so the next request tries again. */
export function dashboardBundle(): Promise<Bundle> {
  building ??= buildBundle().catch((error: unknown) => {
    building = undefined
    throw error
  })
  return building
}

async function buildBundle(): Promise<Bundle> {
  const result = await Bun.build({
    entrypoints: [ENTRY],
    target: 'browser',
    minify: true,
    // Screens loaded with import() become their own chunks, so the first screen loads only what it shows.
    splitting: true,
    naming: '[name]-[hash].[ext]',
    define: { 'process.env.NODE_ENV': '"production"' },
  })
  if (!result.success) throw new AggregateError(result.logs, `the dashboard did not build: ${result.logs.map(String).join('; ')}`)
  const assets = new Map<string, Asset>()
  let script = ''
  let style = ''
  for (const output of result.outputs) {
    const name = output.path.replace(/^\.\//, '')
    const body = new Uint8Array(await output.arrayBuffer())
    assets.set(name, { body, gzip: gzipSync(body), type: output.type })
    if (output.kind === 'entry-point') script = name
    if (name.endsWith('.css')) {
      // One stylesheet, linked by the shell: a CSS file imported by a lazily loaded screen would be an output of its
      // own that nothing loads. Every CSS import goes in app.tsx, and a build that splits them is refused.
      if (style) throw new Error(`the dashboard's CSS came out as two files (${style}, ${name}): import every .css from client/app.tsx`)
      style = name
    }
  }
  return { shell: renderShell(script, style), assets }
}

function renderShell(script: string, style: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Memory</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
${style ? `<link rel="stylesheet" href="/app/assets/${style}">` : ''}
<script type="module" src="/app/assets/${script}"></script>
</head>
<body>
<div id="app"><noscript>The dashboard needs JavaScript. The API works without it: see /openapi.</noscript></div>
</body>
</html>
`
}
