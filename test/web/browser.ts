// The browser harness: one real listening service (test/e2e/server.ts: createTestApp + serveApp on port 0)
// and one Debian Chromium per test file, driven by playwright-core; a fresh context (own cookies, own
// user-data) per story. Every page fails its test on an uncaught error, a dialog or a CSP violation.
// Screenshots go to $SCREENSHOT_DIR (or a temporary folder, printed). Under CI=true a missing Chromium fails
// the run with what to install; elsewhere the suite is skipped with the reason printed.
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import axe from 'axe-core'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { startServer, type E2EServer, type ServerEnv } from '../e2e/server'

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

const inCi = (env: Record<string, string | undefined>) => ['true', '1', 'yes'].includes((env.CI ?? '').trim().toLowerCase())

/** Why the browser suites cannot run here, or null. Throws under CI: a run there must not pass by skipping. */
export function chromiumMissing(env: Record<string, string | undefined> = process.env, path = CHROMIUM_PATH): string | null {
  if (existsSync(path)) return null
  const reason = `Chromium is not at ${path} (apt-get install -y chromium, or set CHROMIUM_PATH)`
  if (inCi(env)) throw new Error(`CI=true and ${reason}: .ci/run installs it when missing`)
  console.warn(`skipping the browser tests: ${reason} (under CI=true this fails the run)`)
  return reason
}

let folder: string | undefined
/** The run's screenshot folder: $SCREENSHOT_DIR, else a new temporary one (printed once). */
export function screenshotDir(): string {
  if (!folder) {
    folder = process.env.SCREENSHOT_DIR || mkdtempSync(join(tmpdir(), 'dashboard-screenshots-'))
    mkdirSync(folder, { recursive: true })
    console.log(`screenshots: ${folder}`)
  }
  return folder
}

export interface Harness {
  server: E2EServer
  browser: Browser
  /** A fresh context (no cookies) and page at `width` px; its errors, dialogs and CSP violations are recorded. */
  open(options?: { width?: number; height?: number; colorScheme?: 'light' | 'dark' }): Promise<Session>
  stop(): Promise<void>
}

export interface Session {
  context: BrowserContext
  page: Page
  /** Uncaught errors, dialogs (alert, confirm…) and console errors (CSP violations among them) so far. */
  problems: string[]
  /** Navigates to a path of the service and waits for the app to settle. */
  go(path: string): Promise<void>
  shot(name: string): Promise<string>
  close(): Promise<void>
}

export async function startHarness(env: ServerEnv = {}): Promise<Harness> {
  const server = await startServer({
    env: (url) => ({ EMBEDDING_PROVIDER: 'hash', DEFAULT_PLAN: 'free', ...(typeof env === 'function' ? env(url) : env) }),
  })
  let browser: Browser
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS })
  } catch (error) {
    await server.stop()
    throw error
  }
  const sessions = new Set<Session>()
  return {
    server,
    browser,
    async open({ width = 1280, height = 860, colorScheme = 'light' } = {}) {
      const context = await browser.newContext({ viewport: { width, height }, colorScheme, baseURL: server.url, reducedMotion: 'reduce' })
      const page = await context.newPage()
      const problems: string[] = []
      page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`))
      page.on('dialog', (dialog) => {
        problems.push(`dialog: ${dialog.type()} ${dialog.message()}`)
        void dialog.dismiss()
      })
      page.on('console', (message) => {
        // A failed request (e.g. a 401 while signed out) logs a resource error the app itself handles.
        if (message.type() === 'error' && !/Failed to load resource/.test(message.text())) problems.push(`console: ${message.text()}`)
      })
      const session: Session = {
        context,
        page,
        problems,
        async go(path) {
          await page.goto(server.url + path)
          await settle(page)
        },
        async shot(name) {
          await settle(page)
          const file = join(screenshotDir(), `${name}.png`)
          await page.screenshot({ path: file, fullPage: true })
          return file
        },
        async close() {
          sessions.delete(session)
          await context.close()
        },
      }
      sessions.add(session)
      return session
    },
    async stop() {
      for (const session of [...sessions]) await session.close()
      await browser.close()
      await server.stop()
    },
  }
}

/** Waits until no request is in flight and nothing says "Loading". */
export async function settle(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle')
  await page.waitForFunction(() => !document.querySelector('.state.loading'), undefined, { timeout: 10_000 })
}

/** Serious and critical axe-core violations on the page as it is, one line each (empty = none). */
export async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, which the page's CSP does not govern (an injected <script> it would).
  await page.evaluate(axe.source)
  const results = await page.evaluate(() => (window as unknown as { axe: typeof axe }).axe.run(document, { resultTypes: ['violations'] }))
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.impact} ${v.id}: ${v.help} — ${v.nodes
          .map((n) => n.target.join(' '))
          .slice(0, 3)
          .join(', ')}`,
    )
}

/** Signs up through the dashboard's own form; resolves once Home shows. */
export async function signUpInBrowser(
  session: Session,
  email = `ada-${crypto.randomUUID().slice(0, 8)}@example.com`,
  password = 'correct horse battery',
): Promise<string> {
  const { page } = session
  await session.go('/app/sign-up')
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Create account' }).click()
  await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor()
  await settle(page)
  return email
}
