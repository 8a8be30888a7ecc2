// Pure unit tests of loadConfig: defaults, every bad variable named in its error, the encryption key, plan overrides.
import { afterAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ConfigError, loadConfig } from './config'

const HEX_KEY = 'ab'.repeat(32)
const B64_KEY = Buffer.alloc(32, 7).toString('base64')
/** Env that never touches the disk: an explicit key, so no encryption.key file is written under ./data. */
const base = { ENCRYPTION_KEY: HEX_KEY }

const temps: string[] = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'config-test-'))
  temps.push(dir)
  return dir
}
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true })
})

/** The ConfigError thrown by loadConfig(env); fails the test when none is thrown. */
function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env)
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return error as ConfigError
  }
  throw new Error(`loadConfig(${JSON.stringify(env)}) did not throw`)
}

describe('defaults', () => {
  test('an empty environment (with a key) gives the documented defaults', () => {
    const config = loadConfig(base)
    expect(config.port).toBe(3000)
    expect(config.baseUrl).toBe('http://localhost:3000')
    expect(config.dataDir).toBe('./data')
    expect(config.databaseUrl).toBeNull()
    // Without Stripe nobody can buy past a cap: the self-hoster's accounts have none.
    expect(config.defaultPlan).toBe('unlimited')
    expect(config.allowedOrigins).toEqual(['http://localhost:3000'])
    expect(config.sessionTtlDays).toBe(30)
    expect(config.dbWatchdogSeconds).toBe(60)
    expect(config.logLevel).toBe('info')
    expect(config.encryptionKey).toEqual(new Uint8Array(Buffer.from(HEX_KEY, 'hex')))
  })

  test('the version is the package version', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
    expect(loadConfig(base).version).toBe(pkg.version)
    expect(loadConfig({ ...base, npm_package_version: '9.9.9' }).version).toBe('9.9.9')
  })

  test('plan limits default to the plans table (src/config/limits.ts, docs/decisions.md#plans)', () => {
    const { plans } = loadConfig(base)
    expect(plans.free).toEqual({
      api_keys: 1,
      workspaces: 2,
      documents: 1_000,
      storage_bytes: 100 * 1024 ** 2,
      connectors: 1,
      search_per_min: 60,
      ask_per_min: 20,
      embeddings_per_min: 60,
      api_calls_per_month: null,
      file_bytes: 10 * 1024 ** 2,
      file_pages: 100,
    })
    expect(plans.pro).toEqual({
      api_keys: 10,
      workspaces: 20,
      documents: 100_000,
      storage_bytes: 10 * 1024 ** 3,
      connectors: 10,
      search_per_min: 600,
      ask_per_min: 200,
      embeddings_per_min: 600,
      api_calls_per_month: null,
      file_bytes: 100 * 1024 ** 2,
      file_pages: 1_000,
    })
    // unlimited: no caps, the rates of pro.
    expect(plans.unlimited).toEqual({
      api_keys: null,
      workspaces: null,
      documents: null,
      storage_bytes: null,
      connectors: null,
      search_per_min: 600,
      ask_per_min: 200,
      embeddings_per_min: 600,
      api_calls_per_month: null,
      file_bytes: 100 * 1024 ** 2,
      file_pages: 2_000,
    })
  })

  test('BASE_URL follows PORT when unset, and loses a trailing slash when set', () => {
    expect(loadConfig({ ...base, PORT: '8080' }).baseUrl).toBe('http://localhost:8080')
    expect(loadConfig({ ...base, BASE_URL: 'https://memory.example.com/' }).baseUrl).toBe('https://memory.example.com')
  })

  test('blank values fall back to the defaults', () => {
    const config = loadConfig({ ...base, PORT: '  ', BASE_URL: '', DEFAULT_PLAN: ' ', DATABASE_URL: '', ALLOWED_ORIGINS: ' , ' })
    expect(config.port).toBe(3000)
    expect(config.baseUrl).toBe('http://localhost:3000')
    expect(config.defaultPlan).toBe('unlimited')
    expect(config.databaseUrl).toBeNull()
    expect(config.allowedOrigins).toEqual(['http://localhost:3000'])
  })

  test('DEFAULT_PLAN defaults to free once billing is configured (STRIPE_SECRET_KEY), as before', () => {
    expect(loadConfig({ ...base, STRIPE_SECRET_KEY: 'sk_test_x' }).defaultPlan).toBe('free')
    expect(loadConfig({ ...base, STRIPE_SECRET_KEY: 'sk_test_x', DEFAULT_PLAN: 'unlimited' }).defaultPlan).toBe('unlimited')
    expect(configError({ ...base, DEFAULT_PLAN: 'gold' }).message).toBe('DEFAULT_PLAN must be one of free, pro, unlimited, got "gold"')
  })

  test('valid settings are read', () => {
    const config = loadConfig({
      ...base,
      PORT: '4000',
      BASE_URL: 'https://memory.example.com',
      DATA_DIR: '/var/lib/memory',
      DEFAULT_PLAN: 'pro',
      LOG_LEVEL: 'warn',
      SESSION_TTL_DAYS: '7',
      DATABASE_URL: 'postgresql://u:p@db:5432/memory',
    })
    expect(config).toMatchObject({
      port: 4000,
      baseUrl: 'https://memory.example.com',
      dataDir: '/var/lib/memory',
      defaultPlan: 'pro',
      logLevel: 'warn',
      sessionTtlDays: 7,
      databaseUrl: 'postgresql://u:p@db:5432/memory',
    })
    expect(loadConfig({ ...base, DATABASE_URL: 'postgres://localhost/memory' }).databaseUrl).toBe('postgres://localhost/memory')
  })

  test('EMBEDDING_DTYPE: unset leaves the choice to the model folder; q8, fp32 and fp16 are read', () => {
    expect(loadConfig(base).embeddings.dtype).toBeNull()
    expect(loadConfig({ ...base, EMBEDDING_DTYPE: ' ' }).embeddings.dtype).toBeNull()
    for (const dtype of ['q8', 'fp32', 'fp16'])
      expect(loadConfig({ ...base, EMBEDDING_DTYPE: dtype }).embeddings.dtype).toBe(dtype as never)
  })

  test('the local model runs in a child process at nice 10 by default; EMBEDDING_ISOLATION, _NICE and _THREADS are read', () => {
    expect(loadConfig(base).embeddings.inference).toEqual({ isolation: 'process', nice: 10, threads: null })
    expect(
      loadConfig({ ...base, EMBEDDING_ISOLATION: 'thread', EMBEDDING_NICE: '19', EMBEDDING_THREADS: '1' }).embeddings.inference,
    ).toEqual({ isolation: 'thread', nice: 19, threads: 1 })
  })

  test('ALLOWED_ORIGINS are reduced to origins, de-duplicated, and always include the service itself', () => {
    const config = loadConfig({ ...base, ALLOWED_ORIGINS: 'http://localhost:5173/app, https://app.example.com ,http://localhost:3000' })
    expect(config.allowedOrigins).toEqual(['http://localhost:3000', 'http://localhost:5173', 'https://app.example.com'])
  })

  test('a browser-extension origin in ALLOWED_ORIGINS is kept as given, never as the opaque "null" origin', () => {
    // Cookie writes must come from the service's own origin or a configured one, an extension's among them (docs/decisions.md#cookie-origins).
    const config = loadConfig({ ...base, ALLOWED_ORIGINS: 'chrome-extension://abcdefghijklmnopabcdefghijklmnop' })
    expect(config.allowedOrigins).toContain('chrome-extension://abcdefghijklmnopabcdefghijklmnop')
    expect(config.allowedOrigins).not.toContain('null')
  })
})

describe('every bad variable fails with a ConfigError that names it', () => {
  const cases: [string, string][] = [
    ['PORT', 'abc'],
    ['PORT', '-1'],
    ['PORT', '65536'],
    ['PORT', '80.5'],
    ['BASE_URL', 'not a url'],
    ['BASE_URL', 'ftp://files.example.com'],
    ['DATABASE_URL', 'mysql://db:3306/memory'],
    ['DATABASE_URL', 'localhost:5432'],
    ['DEFAULT_PLAN', 'enterprise'],
    ['ALLOWED_ORIGINS', 'not an origin'],
    ['ALLOWED_ORIGINS', 'http://ok.example.com,::bad::'],
    ['ENCRYPTION_KEY', 'too-short'],
    ['ENCRYPTION_KEY', 'ab'.repeat(31)],
    ['ENCRYPTION_KEY', Buffer.alloc(16).toString('base64')],
    ['PLAN_FREE_DOCUMENTS', 'many'],
    ['PLAN_FREE_DOCUMENTS', '-5'],
    ['PLAN_FREE_DOCUMENTS', '1.5'],
    ['PLAN_PRO_API_KEYS', 'ten'],
    ['LOG_LEVEL', 'verbose'],
    ['SESSION_TTL_DAYS', '0'],
    ['EMBEDDING_DTYPE', 'int4'],
    ['EMBEDDING_ISOLATION', 'cluster'],
    ['EMBEDDING_NICE', '20'],
    ['EMBEDDING_THREADS', '0'],
    ['EMBEDDING_PROVIDER', 'cohere'],
    ['TRUST_PROXY', 'yes'],
    ['TRUST_PROXY', '10.0.0.0/33'],
    ['TRUST_PROXY', '10.0.0.1, proxy.internal'],
    ['TRUST_PROXY', 'fd00::/129'],
    ['TRUST_PROXY', '10.0.0.0/8/8'],
  ]
  for (const [name, value] of cases) {
    test(`${name}=${JSON.stringify(value)}`, () => {
      const error = configError({ ...base, [name]: value })
      expect(error.message).toContain(name)
    })
  }

  test('PLAN_*_API_CALLS_PER_MONTH accepts "unlimited" but not other words', () => {
    expect(loadConfig({ ...base, PLAN_FREE_API_CALLS_PER_MONTH: 'unlimited' }).plans.free.api_calls_per_month).toBeNull()
    expect(configError({ ...base, PLAN_FREE_API_CALLS_PER_MONTH: 'lots' }).message).toContain('PLAN_FREE_API_CALLS_PER_MONTH')
  })

  test('every limit accepts "unlimited"; the unlimited plan\'s rates are set like any other', () => {
    const { plans } = loadConfig({
      ...base,
      PLAN_FREE_DOCUMENTS: 'unlimited',
      PLAN_PRO_SEARCH_PER_MIN: 'unlimited',
      PLAN_UNLIMITED_ASK_PER_MIN: '5',
      PLAN_UNLIMITED_API_KEYS: '3',
    })
    expect(plans.free.documents).toBeNull()
    expect(plans.pro.search_per_min).toBeNull()
    expect(plans.unlimited.ask_per_min).toBe(5)
    expect(plans.unlimited.api_keys).toBe(3)
    expect(configError({ ...base, PLAN_UNLIMITED_SEARCH_PER_MIN: 'fast' }).message).toContain('PLAN_UNLIMITED_SEARCH_PER_MIN')
  })

  test('DB_WATCHDOG_SECONDS: 0 turns the watchdog off; not a number is refused', () => {
    expect(loadConfig({ ...base, DB_WATCHDOG_SECONDS: '0' }).dbWatchdogSeconds).toBe(0)
    expect(configError({ ...base, DB_WATCHDOG_SECONDS: '-1' }).message).toContain('DB_WATCHDOG_SECONDS')
  })
})

describe('TRUST_PROXY', () => {
  test('unset, blank or false trusts no proxy: the socket peer is the client', () => {
    expect(loadConfig(base).trustProxy).toBe(false)
    expect(loadConfig({ ...base, TRUST_PROXY: ' ' }).trustProxy).toBe(false)
    expect(loadConfig({ ...base, TRUST_PROXY: 'false' }).trustProxy).toBe(false)
  })

  test('true trusts the peer whatever it is; a list names proxies by address or CIDR, IPv4 and IPv6', () => {
    expect(loadConfig({ ...base, TRUST_PROXY: 'true' }).trustProxy).toBe(true)
    expect(loadConfig({ ...base, TRUST_PROXY: ' 10.0.0.1, 172.16.0.0/12 ,::1,fd00::/8' }).trustProxy).toEqual([
      '10.0.0.1',
      '172.16.0.0/12',
      '::1',
      'fd00::/8',
    ])
  })
})

describe('MODEL_ALIASES', () => {
  test('unset: no aliases beyond the default table; entries are read, blanks around them ignored', () => {
    expect(loadConfig(base).modelAliases).toEqual(new Map())
    const { modelAliases } = loadConfig({ ...base, MODEL_ALIASES: ' my-rag = service-rag ,, gpt-4o=service-embed ' })
    expect([...modelAliases]).toEqual([
      ['my-rag', 'service-rag'],
      ['gpt-4o', 'service-embed'],
    ])
  })

  test('a bad entry is a ConfigError naming the variable and the entry', () => {
    const cases: [string, string][] = [
      ['gpt-4o=service-chat', 'MODEL_ALIASES entry "gpt-4o=service-chat": "service-chat" is not a model'],
      ['gpt-4o', 'MODEL_ALIASES entry "gpt-4o": must be alias=service-rag or alias=service-embed'],
      ['=service-rag', 'MODEL_ALIASES entry "=service-rag": must be'],
      ['a=b=service-rag', 'MODEL_ALIASES entry "a=b=service-rag": must be'],
      ['my model=service-rag', 'MODEL_ALIASES entry "my model=service-rag": must be'],
      ['service-embed=service-rag', "service-embed is a model's own id, not an alias"],
      ['x=service-rag,x=service-embed', 'MODEL_ALIASES entry "x=service-embed": x is named twice'],
    ]
    for (const [value, message] of cases) expect(configError({ ...base, MODEL_ALIASES: value }).message).toContain(message)
  })
})

describe('ENCRYPTION_KEY', () => {
  test('is required with DATABASE_URL, and the error names it', () => {
    const error = configError({ DATABASE_URL: 'postgres://db/memory' })
    expect(error.message).toContain('ENCRYPTION_KEY')
  })

  test('is accepted as 64 hex characters or as base64 of 32 bytes', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://db/memory', ENCRYPTION_KEY: HEX_KEY }).encryptionKey).toEqual(
      new Uint8Array(32).fill(0xab),
    )
    expect(loadConfig({ DATABASE_URL: 'postgres://db/memory', ENCRYPTION_KEY: ` ${B64_KEY} ` }).encryptionKey).toEqual(
      new Uint8Array(32).fill(7),
    )
  })

  test('on the embedded default a missing key is generated once into DATA_DIR/encryption.key and read back', () => {
    const dir = join(tempDir(), 'nested', 'data')
    const first = loadConfig({ DATA_DIR: dir })
    const file = join(dir, 'encryption.key')
    expect(existsSync(file)).toBe(true)
    expect(first.encryptionKey).toBeInstanceOf(Uint8Array)
    expect(first.encryptionKey.length).toBe(32)
    expect(readFileSync(file, 'utf8').trim()).toBe(Buffer.from(first.encryptionKey).toString('base64'))
    expect(statSync(file).mode & 0o077).toBe(0) // readable by the owner only
    const written = readFileSync(file, 'utf8')

    const second = loadConfig({ DATA_DIR: dir })
    expect(second.encryptionKey).toEqual(first.encryptionKey)
    expect(readFileSync(file, 'utf8')).toBe(written) // not regenerated
  })

  test('two data directories get two different generated keys', () => {
    const a = loadConfig({ DATA_DIR: tempDir() }).encryptionKey
    const b = loadConfig({ DATA_DIR: tempDir() }).encryptionKey
    expect(a).not.toEqual(b)
  })

  test('a given key wins over the file and writes nothing', () => {
    const dir = tempDir()
    expect(loadConfig({ DATA_DIR: dir, ENCRYPTION_KEY: HEX_KEY }).encryptionKey).toEqual(new Uint8Array(32).fill(0xab))
    expect(existsSync(join(dir, 'encryption.key'))).toBe(false)
  })

  test('a corrupt key file is a ConfigError naming the file', () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'encryption.key'), 'garbage\n')
    expect(configError({ DATA_DIR: dir }).message).toContain('encryption.key')
  })

  test('the in-memory database writes no key file', () => {
    const config = loadConfig({ DATA_DIR: 'memory://' })
    expect(config.encryptionKey.length).toBe(32)
    expect(existsSync('memory://')).toBe(false)
  })
})

describe('plan overrides', () => {
  test('PLAN_<PLAN>_<LIMIT> overrides exactly that limit of that plan', () => {
    const { plans } = loadConfig({
      ...base,
      PLAN_FREE_DOCUMENTS: '5',
      PLAN_PRO_API_KEYS: '50',
      PLAN_FREE_API_CALLS_PER_MONTH: '3',
      PLAN_PRO_SEARCH_PER_MIN: '0',
    })
    expect(plans.free.documents).toBe(5)
    expect(plans.free.api_calls_per_month).toBe(3)
    expect(plans.pro.api_keys).toBe(50)
    expect(plans.pro.search_per_min).toBe(0)
    // everything else keeps its default
    expect(plans.pro.documents).toBe(100_000)
    expect(plans.free.api_keys).toBe(1)
    expect(plans.pro.api_calls_per_month).toBeNull()
  })

  test('every rate and count limit can be overridden', () => {
    const names = [
      'API_KEYS',
      'WORKSPACES',
      'DOCUMENTS',
      'STORAGE_BYTES',
      'CONNECTORS',
      'SEARCH_PER_MIN',
      'ASK_PER_MIN',
      'EMBEDDINGS_PER_MIN',
    ]
    const env: Record<string, string> = { ...base }
    names.forEach((n, i) => (env[`PLAN_PRO_${n}`] = String(1000 + i)))
    const { plans } = loadConfig(env)
    expect(Object.values(plans.pro).slice(0, names.length)).toEqual(names.map((_, i) => 1000 + i))
  })

  test('overrides do not leak between loads', () => {
    loadConfig({ ...base, PLAN_FREE_DOCUMENTS: '5' })
    expect(loadConfig(base).plans.free.documents).toBe(1_000)
  })
})
