// bun run bench:web — the dashboard measured in Debian's Chromium against a real listening service on
// localhost (in-memory PGlite, the built-in extractive answerer, hash embeddings), not asserted anywhere:
//  1. the JavaScript and CSS the first screen loads: every /app/assets response of a cold visit to Home, in
//     gzipped bytes as they came over the wire;
//  2. time to the first screen with data: navigation start → the titles of the recent documents in the DOM
//     (a MutationObserver installed before the page's own script) and → the next frame after it;
//  3. Ask: from the first `delta` reaching the page (a wrapper of ReadableStreamDefaultReader.read stamps the
//     moment the chunk holding the first delta is handed to the app's reader, before the app parses it) to its
//     text in the DOM (MutationObserver) and to the next frame (requestAnimationFrame): what the UI adds.
// BENCH_RUNS (default 15) sets the repetitions of 2 and 3.
import { cpus, loadavg } from 'node:os'
import type { Page } from 'playwright-core'
import { signUpInBrowser, startHarness } from '../web/browser'

const RUNS = Number(process.env.BENCH_RUNS ?? 15)

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)]!
const ms = (x: number) => `${x.toFixed(1)} ms`
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`

/** Stamps, relative to navigation start: when recent documents show (and paint); when Ask's first delta arrives and shows. */
const PROBES = () => {
  const w = window as unknown as Record<string, number | undefined>
  const frame = (key: string) => requestAnimationFrame(() => (w[key] = performance.now()))
  new MutationObserver(() => {
    if (w.docsAt === undefined && document.querySelector('.doc-list a.doc-title')) {
      w.docsAt = performance.now()
      frame('docsPaintAt')
    }
    if (w.deltaAt !== undefined && w.deltaShownAt === undefined && document.querySelector('.turn.answer .markdown')?.textContent?.trim()) {
      w.deltaShownAt = performance.now()
      frame('deltaPaintAt')
    }
  }).observe(document, { childList: true, subtree: true, characterData: true })
  const read = ReadableStreamDefaultReader.prototype.read
  const decoder = new TextDecoder()
  ReadableStreamDefaultReader.prototype.read = function (this: ReadableStreamDefaultReader) {
    return read.call(this).then((result) => {
      const at = performance.now()
      if (w.deltaAt === undefined && result.value instanceof Uint8Array && decoder.decode(result.value).includes('"type":"delta"'))
        w.deltaAt = at
      return result
    })
  } as typeof read
}

const stamp = (page: Page, key: string) =>
  page
    .waitForFunction((k) => (window as unknown as Record<string, number | undefined>)[k], key, { timeout: 15_000 })
    .then((h) => h.jsonValue() as Promise<number>)

const h = await startHarness({ DEFAULT_PLAN: 'pro' })
try {
  const first = await h.open()
  await signUpInBrowser(first)
  for (let i = 0; i < 20; i++) {
    const res = await first.page.request.post('/api/documents', {
      headers: { origin: h.server.url },
      data: {
        title: `Runbook ${i + 1}`,
        body: `Backups run nightly at 02:00 UTC and are kept for ${20 + i} days. Restores are tested monthly.`,
        source: 'api',
      },
    })
    if (res.status() !== 201) throw new Error(`ingest failed: ${res.status()}`)
  }
  const cookies = await first.context.cookies()

  // 1 + 2: cold visits (a fresh browser context each: empty cache), Home with its documents.
  const assets = new Map<string, number>()
  const docs: number[] = []
  const docsPaint: number[] = []
  for (let run = 0; run < RUNS; run++) {
    const s = await h.open()
    await s.context.addCookies(cookies)
    await s.page.addInitScript(PROBES)
    if (run === 0)
      s.page.on('requestfinished', async (request) => {
        if (!request.url().includes('/app/assets/')) return
        assets.set(new URL(request.url()).pathname.split('/').pop()!, (await request.sizes()).responseBodySize)
      })
    await s.page.goto(`${h.server.url}/app`)
    docs.push(await stamp(s.page, 'docsAt'))
    docsPaint.push(await stamp(s.page, 'docsPaintAt'))
    await s.page.waitForLoadState('networkidle')
    await s.close()
  }

  // 3: Ask, the first delta to its text on screen.
  const s = await h.open()
  await s.context.addCookies(cookies)
  await s.page.addInitScript(PROBES)
  const shown: number[] = []
  const painted: number[] = []
  for (let run = 0; run < RUNS; run++) {
    await s.page.goto(`${h.server.url}/app/ask`)
    await s.page.getByLabel('Your question').fill(`How long are backups of runbook ${run + 1} kept?`)
    await s.page.keyboard.press('Enter')
    const delta = await stamp(s.page, 'deltaAt')
    shown.push((await stamp(s.page, 'deltaShownAt')) - delta)
    painted.push((await stamp(s.page, 'deltaPaintAt')) - delta)
    await s.page.locator('.turn.answer.done').waitFor()
  }
  const version = h.browser.version()
  await s.close()

  const js = [...assets].filter(([name]) => name.endsWith('.js'))
  const css = [...assets].filter(([name]) => name.endsWith('.css'))
  const sum = (xs: [string, number][]) => xs.reduce((n, [, b]) => n + b, 0)
  console.log(
    `bench:web — Chromium ${version}, headless, localhost; ${cpus().length} cores (load ${loadavg()[0]!.toFixed(1)}), ${RUNS} runs each`,
  )
  console.log(
    `first screen (Home) loads, gzipped as served: JavaScript ${kb(sum(js))} (${js.map(([n, b]) => `${n} ${kb(b)}`).join(', ')}), CSS ${kb(sum(css))}; total ${kb(sum(js) + sum(css))} (budget 150 KB of JavaScript)`,
  )
  console.log(
    `first screen with data (cold cache, 20 documents): titles in the DOM median ${ms(median(docs))}, p95 ${ms(p95(docs))}; painted median ${ms(median(docsPaint))}, p95 ${ms(p95(docsPaint))} after navigation start`,
  )
  console.log(
    `Ask, first delta in the page → its text in the DOM: median ${ms(median(shown))}, p95 ${ms(p95(shown))}; → next frame: median ${ms(median(painted))}, p95 ${ms(p95(painted))}`,
  )
} finally {
  await h.stop()
}
