// Debian's Chromium with the unpacked extension loaded, for the extension's end-to-end tests (playwright-core drives it).
import { chromium, type BrowserContext, type Page, type Worker } from 'playwright-core'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** Why the browser tests cannot run here, or null. Under CI a missing browser is a failure, not a skip. */
export function chromiumMissing(): string | null {
  if (existsSync(CHROMIUM)) return null
  const reason = `Chromium not found at ${CHROMIUM} (install Debian's chromium package, or set CHROMIUM_PATH)`
  if (process.env.CI === 'true') throw new Error(`${reason}: the extension's browser tests cannot run`)
  return reason
}

export interface ExtensionBrowser {
  context: BrowserContext
  extensionId: string
  /** The extension's background service worker: its `chrome.*` APIs are reachable through evaluate. */
  worker: Worker
  close(): Promise<void>
}

/**
 * Debian's Chromium (156) loads unpacked extensions headless: its `--headless` is the new headless mode, a full
 * browser (the old headless shell, without extensions, is no longer in it). The extension id comes from the
 * service worker's URL.
 */
export async function launchWithExtension(dir: string): Promise<ExtensionBrowser> {
  const userDataDir = mkdtempSync(join(tmpdir(), 'extension-chromium-'))
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    args: [
      '--headless=new',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--disable-extensions-except=${dir}`,
      `--load-extension=${dir}`,
    ],
  })
  const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker', { timeout: 20_000 }))
  return {
    context,
    extensionId: new URL(worker.url()).host,
    worker,
    async close() {
      await context.close()
      rmSync(userDataDir, { recursive: true, force: true })
    },
  }
}

/** The id of the tab showing `url`, as the extension sees it. */
export async function tabIdOf(worker: Worker, url: string): Promise<number> {
  const id = await worker.evaluate(async (u) => {
    const tabs = await (globalThis as any).chrome.tabs.query({})
    return tabs.find((t: { url?: string; id?: number }) => t.url === u)?.id as number | undefined
  }, url)
  if (id === undefined) throw new Error(`no tab shows ${url}`)
  return id
}

export async function screenshot(page: Page, dir: string, name: string) {
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true })
}
