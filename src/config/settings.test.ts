// The settings table is the one list of settings: every variable the service reads has its row, every row is read,
// and the README's tables are the ones the table prints (`bun run readme:settings` rewrites them).
import { describe, expect, test } from 'bun:test'
import { loadConfig } from '../config'
import { markdownTable, updateReadme } from './readme'
import { tableRows } from './setting'
import { SETTINGS } from './settings'

const rows = tableRows(SETTINGS)
/** A row's variable as a pattern: `<PROVIDER>_CLIENT_ID` matches GITHUB_CLIENT_ID, `<AUTH|TOKEN>` one of those words. */
const pattern = (env: string) =>
  new RegExp(`^${env.replace(/<([A-Z|]+)>/g, (_, names: string) => (names.includes('|') ? `(${names})` : '[A-Z_]+'))}$`)

/** Every name loadConfig looks up in `env`, whether it is set or not. */
function namesRead(env: Record<string, string>): Set<string> {
  const read = new Set<string>()
  const spy = new Proxy(env, {
    get(target, name) {
      if (typeof name === 'string') read.add(name)
      return target[name as string]
    },
  })
  loadConfig(spy)
  return read
}

// Every optional part switched on, so that the variables read only then (MAIL_FROM, a provider's URLs) are read.
const FULL = {
  ENCRYPTION_KEY: 'ab'.repeat(32),
  DATA_DIR: 'memory://',
  SMTP_URL: 'smtp://mail.example.com:25',
  EMBEDDING_PROVIDER: 'openai',
  EMBEDDING_MODEL: 'text-embedding-3-small',
  KEYWORD_MEMORY_MAX_POSTINGS: '1000',
  ...Object.fromEntries(
    ['GITHUB', 'GOOGLE', 'CONFLUENCE', 'NOTION'].flatMap((p) => [
      [`${p}_CLIENT_ID`, 'id'],
      [`${p}_CLIENT_SECRET`, 'secret'],
      [`${p}_REVOKE_URL`, 'https://revoke.example.com'],
    ]),
  ),
}

describe('the settings table', () => {
  test('every variable the service reads has its row in the table (and so in the README)', () => {
    const read = [...namesRead(FULL)].filter((name) => name !== 'npm_package_version') // set by `bun run`, not a setting
    const missing = read.filter((name) => !rows.some((row) => pattern(row.env).test(name)))
    expect(missing).toEqual([])
    expect(read.length).toBeGreaterThan(60) // the plans' and providers' families included
  })

  test('every row names a variable the service reads, once', () => {
    const read = [...namesRead(FULL)]
    expect(rows.filter((row) => !read.some((name) => pattern(row.env).test(name))).map((row) => row.env)).toEqual([])
    expect(new Set(rows.map((row) => row.env)).size).toBe(rows.length)
    for (const row of rows) expect(row.doc.length).toBeGreaterThan(0)
  })

  test('a variable two settings share is one row and one value (OPENAI_BASE_URL for chat and embeddings)', () => {
    expect(rows.filter((row) => row.env === 'OPENAI_BASE_URL')).toHaveLength(1)
    const config = loadConfig({ ...FULL, OPENAI_BASE_URL: 'http://localhost:11434/v1/' })
    expect(config.chat.openaiBaseUrl).toBe('http://localhost:11434/v1')
    expect(config.embeddings.openaiBaseUrl).toBe('http://localhost:11434/v1')
  })

  test('a default shown as text is the value read from an empty environment', () => {
    const config = loadConfig({ ENCRYPTION_KEY: FULL.ENCRYPTION_KEY })
    const shown = (env: string) => rows.find((row) => row.env === env)!.default
    expect(shown('PORT')).toBe(`\`${config.port}\``)
    expect(shown('FILE_TIMEOUT_SECONDS')).toBe(`\`${config.files.timeoutMs / 1000}\``)
    expect(shown('KEYWORD_MEMORY_MAX_BYTES')).toStartWith(`\`${config.keywordCache.maxBytes}\``)
    expect(shown('EMBEDDING_MODEL')).toBe(`\`${config.embeddings.model}\``)
    expect(shown('STRIPE_API_URL')).toBe(`\`${config.stripe.apiUrl}\``)
    expect(shown('EMBEDDING_THREADS')).toBeNull()
  })
})

describe("the README's tables", () => {
  test('are the ones the table prints: run `bun run readme:settings` after changing a setting', async () => {
    const readme = await Bun.file(new URL('../../README.md', import.meta.url)).text()
    expect(updateReadme(readme)).toBe(readme)
  })

  test('a changed setting shows as a stale README, and a README without the markers is an error', () => {
    const stale = '<!-- settings:start -->\n| variable |\n<!-- settings:end -->\n<!-- plans:start -->\n<!-- plans:end -->\n'
    const updated = updateReadme(stale)
    expect(updated).not.toBe(stale)
    expect(updated).toContain('| `PORT` ')
    expect(updated).toContain('| documents (`DOCUMENTS`) ')
    expect(() => updateReadme('no markers')).toThrow('<!-- settings:start -->')
  })

  test('cells are padded to their column and a | inside one is escaped', () => {
    expect(
      markdownTable([
        ['a', 'bb'],
        ['x|y', ''],
      ]),
    ).toBe('| a    | bb  |\n| ---- | --- |\n| x\\|y |     |')
  })
})
