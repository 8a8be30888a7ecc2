// The one reader of process.env: every setting, validated at boot into a typed Config.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { isIP } from 'node:net'
import { join, resolve } from 'node:path'

export const PLANS = ['free', 'pro', 'unlimited'] as const
export type Plan = (typeof PLANS)[number]

/** Each limit of a plan; null = unlimited (any of them can be set so, e.g. PLAN_FREE_DOCUMENTS=unlimited). */
export interface PlanLimits {
  api_keys: number | null
  workspaces: number | null
  documents: number | null
  storage_bytes: number | null
  connectors: number | null
  search_per_min: number | null
  ask_per_min: number | null
  embeddings_per_min: number | null
  /** DESIGN.md §7 sets no monthly cap by default. */
  api_calls_per_month: number | null
  /** The largest file an upload takes, and the most pages (slides, sheets) read from one. */
  file_bytes: number | null
  file_pages: number | null
}

const DEFAULT_LIMITS: Record<Plan, PlanLimits> = {
  free: {
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
  },
  pro: {
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
  },
  // The self-hoster's plan (the default without billing): no caps; the rates stay as pro's, to keep a runaway
  // client from starving the others, and are set like any limit (PLAN_UNLIMITED_SEARCH_PER_MIN=…).
  unlimited: {
    api_keys: null,
    workspaces: null,
    documents: null,
    storage_bytes: null,
    connectors: null,
    search_per_min: 600,
    ask_per_min: 200,
    embeddings_per_min: 600,
    api_calls_per_month: null,
    // Files stay bounded even here: one file is read whole in memory by one worker (PLAN_UNLIMITED_FILE_BYTES=…).
    file_bytes: 100 * 1024 ** 2,
    file_pages: 2_000,
  },
}

export interface Config {
  port: number
  baseUrl: string
  dataDir: string
  /** Set → postgres.js against this server; unset → embedded PGlite under dataDir. */
  databaseUrl: string | null
  /** 32 bytes for AES-256-GCM. */
  encryptionKey: Uint8Array
  /** The plan of every account without a paid subscription, read at each request (not stored with the account). */
  defaultPlan: Plan
  /** Origins allowed to send cookie-authenticated state-changing requests (the service's own is always allowed). */
  allowedOrigins: string[]
  plans: Record<Plan, PlanLimits>
  sessionTtlDays: number
  /** Days an activity entry is kept (0: for ever). */
  activityRetentionDays: number
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent'
  version: string
  embeddings: EmbeddingConfig
  /** service-rag: an OpenAI-compatible chat model (OPENAI_BASE_URL/OPENAI_API_KEY), or null → the built-in extractive answerer. */
  chat: { model: string | null; openaiBaseUrl: string | null; openaiApiKey: string | null }
  /** EXTRACT_AFTER_MESSAGES: new messages of a thread that queue an extraction of learnings (with a CHAT_MODEL); 0 = only on request. */
  extractAfterMessages: number
  /** How an uploaded file is read (src/files/extract-file.ts): FILE_TIMEOUT_SECONDS, FILE_MEMORY_MB of resident
   * memory for the reading subprocess, FILE_UNPACKED_MB that a zip-based file (DOCX, XLSX, PPTX) may unpack to. */
  files: { timeoutMs: number; maxMemoryBytes: number; maxUnpackedBytes: number }
  /** OAuth apps by provider (sign-in and connectors); null when its client id or secret is unset (503). */
  oauth: Record<OAuthProvider, OAuthApp | null>
  /** Stripe billing; each part null when its variable is unset (its routes answer 503). */
  stripe: { secretKey: string | null; webhookSecret: string | null; pricePro: string | null; apiUrl: string }
  /** Run the job worker inside the server process (default); false when `bun run worker` runs it apart. */
  workerInProcess: boolean
  /** An active connector is synced again this long after its last run started; 0 = only when asked. */
  connectorSyncIntervalMinutes: number
  /** A server or worker whose database has not answered for this long exits (a supervisor restarts it); 0 = never. */
  dbWatchdogSeconds: number
  /** In-process copies of users' keyword indexes (src/retrieval/keyword-memory.ts). */
  keywordMemory: { minDocuments: number; maxBytes: number }
  vectorMemory: { minDocuments: number; maxMegabytes: number }
  /** The embedded database's write-ahead log stays within this (db/pglite-checkpoints.ts); PostgreSQL keeps its own. */
  walMaxMegabytes: number
  /** Writes are refused (507) while less than this is free on DATA_DIR's disk (embedded database only). */
  diskReserveMegabytes: number
  /** MCP clients' dynamic registrations (POST /oauth/register) allowed per address per hour. */
  oauthRegistrationsPerHour: number
  /** Outgoing mail (address verification, password reset): SMTP_URL and MAIL_FROM; null without SMTP_URL. */
  mail: { smtpUrl: string; from: string } | null
  /**
   * TRUST_PROXY: which socket peers are proxies whose X-Forwarded-For names the client (src/http/client-address.ts).
   * false: none, the peer is the client; true: any peer (one proxy in front); a list: these addresses and CIDR ranges.
   */
  trustProxy: boolean | string[]
  /**
   * MODEL_ALIASES (`gpt-4o=service-rag,text-embedding-3-small=service-embed`): model ids that name one of the
   * service's models, on top of the default table (src/modules/v1/model-aliases.ts); an entry for a default id re-points it.
   */
  modelAliases: Map<string, ServiceModel>
}

/** The service's two models (ai/models.ts names them for the code): what a model alias can point at. */
/** WAL_MAX_MB when not set: the embedded database checkpoints to keep pg_wal within it (db/pglite-checkpoints.ts). */
export const DEFAULT_WAL_MAX_MB = 256

export const SERVICE_MODELS = ['service-rag', 'service-embed'] as const
export type ServiceModel = (typeof SERVICE_MODELS)[number]

export const EMBEDDING_PROVIDERS = ['local', 'openai', 'hash', 'none'] as const
/** Weights of a local ONNX model: int8 (`onnx/model_quantized.onnx`), float32 (`model.onnx`), float16 (`model_fp16.onnx`). */
export const EMBEDDING_DTYPES = ['q8', 'fp32', 'fp16'] as const
export type EmbeddingDtype = (typeof EMBEDDING_DTYPES)[number]

/** Where a local model runs (src/ai/inference-process.ts). */
export interface InferenceOptions {
  /** `process` (a child process at lower scheduling priority) or `thread` (a worker thread in this process). */
  isolation: 'process' | 'thread'
  /** Niceness of the child process (0–19): the API's own threads always win the CPU, the model takes the rest. */
  nice: number
  /** ONNX Runtime's intra-op threads; null → its default (every core) for a process, one core fewer for a thread. */
  threads: number | null
}

export interface EmbeddingConfig {
  /** local (in-process transformers.js), openai (any OpenAI-compatible endpoint), hash (tests), none. */
  provider: (typeof EMBEDDING_PROVIDERS)[number]
  model: string
  /** A directory holding the local model's files; else it is downloaded once into DATA_DIR/models. */
  modelPath: string | null
  /** EMBEDDING_DTYPE; null → the file the model folder holds (q8 first), or q8 when downloading. */
  dtype: EmbeddingDtype | null
  /** Dimensions of the hash embedder. */
  dimensions: number
  openaiBaseUrl: string | null
  openaiApiKey: string | null
  /** Where a local model runs: EMBEDDING_ISOLATION, EMBEDDING_NICE, EMBEDDING_THREADS. */
  inference: InferenceOptions
}

export const OAUTH_PROVIDERS = ['github', 'google', 'confluence', 'notion'] as const
export type OAuthProvider = (typeof OAUTH_PROVIDERS)[number]

export interface OAuthApp {
  clientId: string
  clientSecret: string
  authUrl: string
  tokenUrl: string
  /** The provider's REST API base (profile, pages, files). */
  apiUrl: string
  /** Token revocation endpoint, where the provider has one. */
  revokeUrl: string | null
}

/** Each provider's public endpoints; `<PROVIDER>_AUTH_URL`, `_TOKEN_URL`, `_API_URL`, `_REVOKE_URL` override them. */
const OAUTH_DEFAULTS: Record<OAuthProvider, Omit<OAuthApp, 'clientId' | 'clientSecret'>> = {
  github: {
    authUrl: 'https://github.com/login/oauth/authorize',
    tokenUrl: 'https://github.com/login/oauth/access_token',
    apiUrl: 'https://api.github.com',
    revokeUrl: null,
  },
  google: {
    authUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
    tokenUrl: 'https://oauth2.googleapis.com/token',
    apiUrl: 'https://www.googleapis.com',
    revokeUrl: 'https://oauth2.googleapis.com/revoke',
  },
  confluence: {
    authUrl: 'https://auth.atlassian.com/authorize',
    tokenUrl: 'https://auth.atlassian.com/oauth/token',
    apiUrl: 'https://api.atlassian.com',
    revokeUrl: null,
  },
  notion: {
    authUrl: 'https://api.notion.com/v1/oauth/authorize',
    tokenUrl: 'https://api.notion.com/v1/oauth/token',
    apiUrl: 'https://api.notion.com',
    revokeUrl: 'https://api.notion.com/v1/oauth/revoke',
  },
}

function oauthApps(env: Env): Record<OAuthProvider, OAuthApp | null> {
  const apps = {} as Record<OAuthProvider, OAuthApp | null>
  for (const provider of OAUTH_PROVIDERS) {
    const P = provider.toUpperCase()
    const clientId = env[`${P}_CLIENT_ID`]?.trim()
    const clientSecret = env[`${P}_CLIENT_SECRET`]?.trim()
    if (!clientId || !clientSecret) {
      apps[provider] = null
      continue
    }
    const d = OAUTH_DEFAULTS[provider]
    const revoke = env[`${P}_REVOKE_URL`]?.trim()
    apps[provider] = {
      clientId,
      clientSecret,
      authUrl: url(env, `${P}_AUTH_URL`, d.authUrl),
      tokenUrl: url(env, `${P}_TOKEN_URL`, d.tokenUrl),
      apiUrl: url(env, `${P}_API_URL`, d.apiUrl).replace(/\/+$/, ''),
      revokeUrl: revoke ? url(env, `${P}_REVOKE_URL`, '') : d.revokeUrl,
    }
  }
  return apps
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>

export function loadConfig(env: Env = process.env): Config {
  const port = int(env, 'PORT', 3000, 0, 65535)
  const baseUrl = url(env, 'BASE_URL', `http://localhost:${port}`)
  const dataDir = env.DATA_DIR?.trim() || './data'
  const databaseUrl = env.DATABASE_URL?.trim() || null
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// or postgresql:// URL')
  }
  const stripeSecretKey = env.STRIPE_SECRET_KEY?.trim() || null
  // Without billing nobody can buy their way past a cap, so a self-hosted account has none unless asked.
  const defaultPlan = oneOf(env, 'DEFAULT_PLAN', PLANS, stripeSecretKey ? 'free' : 'unlimited')
  const allowedOrigins = (env.ALLOWED_ORIGINS ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean)
    .map(parseOrigin)
  return {
    port,
    baseUrl,
    dataDir,
    databaseUrl,
    encryptionKey: encryptionKey(env, dataDir, databaseUrl),
    defaultPlan,
    allowedOrigins: [...new Set([new URL(baseUrl).origin, ...allowedOrigins])],
    plans: planLimits(env),
    sessionTtlDays: int(env, 'SESSION_TTL_DAYS', 30, 1, 365),
    activityRetentionDays: int(env, 'ACTIVITY_RETENTION_DAYS', 365, 0, 36_500),
    logLevel: oneOf(env, 'LOG_LEVEL', ['debug', 'info', 'warn', 'error', 'silent'] as const, 'info'),
    version: env.npm_package_version ?? packageVersion(),
    embeddings: embeddingConfig(env),
    chat: {
      model: env.CHAT_MODEL?.trim() || null,
      openaiBaseUrl: env.OPENAI_BASE_URL?.trim() ? url(env, 'OPENAI_BASE_URL', '') : null,
      openaiApiKey: env.OPENAI_API_KEY?.trim() || null,
    },
    extractAfterMessages: int(env, 'EXTRACT_AFTER_MESSAGES', 20, 0, 100_000),
    files: {
      timeoutMs: int(env, 'FILE_TIMEOUT_SECONDS', 60, 1, 3600) * 1000,
      maxMemoryBytes: int(env, 'FILE_MEMORY_MB', 1024, 64, 65_536) * 1024 ** 2,
      maxUnpackedBytes: int(env, 'FILE_UNPACKED_MB', 256, 1, 65_536) * 1024 ** 2,
    },
    oauth: oauthApps(env),
    stripe: {
      secretKey: stripeSecretKey,
      webhookSecret: env.STRIPE_WEBHOOK_SECRET?.trim() || null,
      pricePro: env.STRIPE_PRICE_PRO?.trim() || null,
      apiUrl: url(env, 'STRIPE_API_URL', 'https://api.stripe.com').replace(/\/+$/, ''),
    },
    workerInProcess: oneOf(env, 'WORKER_IN_PROCESS', ['true', 'false'] as const, 'true') === 'true',
    connectorSyncIntervalMinutes: int(env, 'CONNECTOR_SYNC_INTERVAL_MINUTES', 60, 0, 7 * 24 * 60),
    dbWatchdogSeconds: int(env, 'DB_WATCHDOG_SECONDS', 60, 0, 24 * 60 * 60),
    keywordMemory: {
      minDocuments: int(env, 'KEYWORD_MEMORY_MIN_DOCUMENTS', 1_000, 1, Number.MAX_SAFE_INTEGER),
      maxBytes: keywordMemoryBytes(env),
    },
    vectorMemory: {
      minDocuments: int(env, 'VECTOR_MEMORY_MIN_DOCUMENTS', 1_000, 1, Number.MAX_SAFE_INTEGER),
      // 0 turns the copies off; ~1.6 KB a 384-dimension chunk (512 MB ≈ 300k chunks, ~200k abstract-sized documents).
      maxMegabytes: int(env, 'VECTOR_MEMORY_MAX_MB', 512, 0, 1_000_000),
    },
    // At least 128: PostgreSQL keeps two 16 MB segments whatever the setting, and a checkpoint starts at a quarter.
    walMaxMegabytes: int(env, 'WAL_MAX_MB', DEFAULT_WAL_MAX_MB, 128, 1_000_000),
    diskReserveMegabytes: int(env, 'DISK_RESERVE_MB', 256, 0, 1_000_000),
    oauthRegistrationsPerHour: int(env, 'OAUTH_REGISTRATIONS_PER_HOUR', 60, 1, 100_000),
    mail: mailConfig(env, baseUrl),
    trustProxy: trustProxy(env),
    modelAliases: modelAliases(env),
  }
}

/** MODEL_ALIASES: comma-separated `alias=service-rag|service-embed`; a bad entry is named in the error. */
function modelAliases(env: Env): Map<string, ServiceModel> {
  const aliases = new Map<string, ServiceModel>()
  for (const entry of (env.MODEL_ALIASES ?? '').split(',').map((e) => e.trim())) {
    if (!entry) continue
    const parts = entry.split('=').map((part) => part.trim())
    const [alias = '', target = ''] = parts
    const bad = (why: string) => new ConfigError(`MODEL_ALIASES entry "${entry}": ${why}`)
    if (parts.length !== 2 || !alias || /\s/.test(alias)) throw bad('must be alias=service-rag or alias=service-embed')
    if (!SERVICE_MODELS.includes(target as ServiceModel)) throw bad(`"${target}" is not a model; use service-rag or service-embed`)
    if (SERVICE_MODELS.includes(alias as ServiceModel)) throw bad(`${alias} is a model's own id, not an alias`)
    if (aliases.has(alias)) throw bad(`${alias} is named twice`)
    aliases.set(alias, target as ServiceModel)
  }
  return aliases
}

/** SMTP_URL (smtp:// or smtps://, user and password in it when the server wants them) and MAIL_FROM (default
 * no-reply@ the BASE_URL's host). */
function mailConfig(env: Env, baseUrl: string): Config['mail'] {
  const raw = env.SMTP_URL?.trim()
  if (!raw) return null
  let parsed: URL
  try {
    parsed = new URL(raw)
  } catch {
    throw new ConfigError(`SMTP_URL must be an smtp:// or smtps:// URL, got "${raw.replace(/\/\/[^@/]*@/, '//…@')}"`)
  }
  if (parsed.protocol !== 'smtp:' && parsed.protocol !== 'smtps:') throw new ConfigError('SMTP_URL must be an smtp:// or smtps:// URL')
  const from = env.MAIL_FROM?.trim() || `no-reply@${new URL(baseUrl).hostname}`
  if (!/^[^\s@<>]+@[^\s@<>]+$|^[^<>]*<[^\s@<>]+@[^\s@<>]+>$/.test(from)) {
    throw new ConfigError(`MAIL_FROM must be an address such as "Memory <no-reply@example.com>", got "${from}"`)
  }
  return { smtpUrl: raw, from }
}

/** TRUST_PROXY: unset or false, true, or a comma list of IPv4/IPv6 addresses and CIDR ranges (10.0.0.0/8, fd00::/8). */
function trustProxy(env: Env): boolean | string[] {
  const raw = env.TRUST_PROXY?.trim()
  if (!raw || raw === 'false') return false
  if (raw === 'true') return true
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
  for (const entry of entries) {
    const [address = '', bits, ...rest] = entry.split('/')
    const version = isIP(address)
    const maxBits = version === 6 ? 128 : 32
    if (!version || rest.length > 0 || (bits !== undefined && !(/^\d{1,3}$/.test(bits) && Number(bits) <= maxBits))) {
      throw new ConfigError(
        `TRUST_PROXY must be true, false, or a comma-separated list of proxy addresses or CIDR ranges (IPv4 or IPv6), got "${entry}"`,
      )
    }
  }
  return entries
}

/**
 * The keyword copies' budget: KEYWORD_MEMORY_MAX_BYTES, 0 = off. The default, 256 MiB, holds ~6.3 bytes a
 * posting: 100k SciFact-sized documents (10.7M postings) take ~66 MB of it, so ~390k such documents fit. The
 * budget was once counted in postings: KEYWORD_MEMORY_MAX_POSTINGS still sets it, at 8 bytes a posting as it said.
 */
function keywordMemoryBytes(env: Env): number {
  if (env.KEYWORD_MEMORY_MAX_BYTES === undefined && env.KEYWORD_MEMORY_MAX_POSTINGS !== undefined) {
    return 8 * int(env, 'KEYWORD_MEMORY_MAX_POSTINGS', 0, 0, Number.MAX_SAFE_INTEGER / 8)
  }
  return int(env, 'KEYWORD_MEMORY_MAX_BYTES', 256 * 1024 ** 2, 0, Number.MAX_SAFE_INTEGER)
}

/** For entry points: the config, or exit with the message that names the bad variable. */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig()
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    console.error(`configuration error: ${error.message}`)
    process.exit(1)
  }
}

/** True when the embedded database lives only in memory (tests); then nothing is written to disk. */
export function isInMemory(config: Pick<Config, 'dataDir'>): boolean {
  return config.dataDir === 'memory://'
}

/**
 * The origin a browser sends for this URL. Extension schemes (chrome-extension://id) have an opaque
 * WHATWG origin ("null"), but browsers send `scheme://host` for them, so that is what is kept; the
 * literal "null" origin is never allowed.
 */
function parseOrigin(value: string): string {
  let u: URL
  try {
    u = new URL(value)
  } catch {
    throw new ConfigError(`ALLOWED_ORIGINS has an invalid origin: ${value}`)
  }
  const origin = u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : `${u.protocol}//${u.host}`
  if (!u.host || origin === 'null') throw new ConfigError(`ALLOWED_ORIGINS has an invalid origin: ${value}`)
  return origin
}

function embeddingConfig(env: Env): EmbeddingConfig {
  const provider = oneOf(env, 'EMBEDDING_PROVIDER', EMBEDDING_PROVIDERS, 'local')
  const openaiBaseUrl = env.OPENAI_BASE_URL?.trim() ? url(env, 'OPENAI_BASE_URL', '') : null
  const model = env.EMBEDDING_MODEL?.trim() || (provider === 'local' ? 'Xenova/bge-small-en-v1.5' : provider === 'openai' ? '' : 'hash')
  if (provider === 'openai' && !model) throw new ConfigError('EMBEDDING_MODEL is required when EMBEDDING_PROVIDER=openai')
  return {
    provider,
    model,
    modelPath: env.EMBEDDING_MODEL_PATH?.trim() || null,
    dtype: env.EMBEDDING_DTYPE?.trim() ? oneOf(env, 'EMBEDDING_DTYPE', EMBEDDING_DTYPES, 'q8') : null,
    dimensions: int(env, 'EMBEDDING_DIMENSIONS', 512, 8, 4096),
    openaiBaseUrl,
    openaiApiKey: env.OPENAI_API_KEY?.trim() || null,
    inference: {
      isolation: oneOf(env, 'EMBEDDING_ISOLATION', ['process', 'thread'] as const, 'process'),
      nice: int(env, 'EMBEDDING_NICE', 10, 0, 19),
      threads: env.EMBEDDING_THREADS?.trim() ? int(env, 'EMBEDDING_THREADS', 1, 1, 256) : null,
    },
  }
}

function planLimits(env: Env): Record<Plan, PlanLimits> {
  const plans = structuredClone(DEFAULT_LIMITS)
  for (const plan of PLANS) {
    for (const limit of Object.keys(plans[plan]) as (keyof PlanLimits)[]) {
      const name = `PLAN_${plan.toUpperCase()}_${limit.toUpperCase()}`
      if (env[name] === undefined || env[name] === '') continue
      if (env[name]!.trim() === 'unlimited') {
        plans[plan][limit] = null
        continue
      }
      plans[plan][limit] = int(env, name, 0, 0, Number.MAX_SAFE_INTEGER)
    }
  }
  return plans
}

/**
 * ENCRYPTION_KEY is 32 bytes as base64 or 64 hex characters. On the embedded default a missing key is
 * generated once and kept in DATA_DIR/encryption.key, so secrets stay readable across restarts;
 * with DATABASE_URL several processes share the data, so the key must be given.
 */
function encryptionKey(env: Env, dataDir: string, databaseUrl: string | null): Uint8Array {
  const given = env.ENCRYPTION_KEY?.trim()
  if (given) return parseKey(given, 'ENCRYPTION_KEY')
  if (databaseUrl) throw new ConfigError('ENCRYPTION_KEY is required when DATABASE_URL is set (32 bytes, base64 or hex)')
  if (isInMemory({ dataDir })) return crypto.getRandomValues(new Uint8Array(32))
  const file = join(resolve(dataDir), 'encryption.key')
  if (existsSync(file)) return parseKey(readFileSync(file, 'utf8').trim(), file)
  mkdirSync(resolve(dataDir), { recursive: true })
  const key = crypto.getRandomValues(new Uint8Array(32))
  try {
    // Exclusive: of two first starts at once, one key wins and both read it.
    writeFileSync(file, Buffer.from(key).toString('base64') + '\n', { mode: 0o600, flag: 'wx' })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    return parseKey(readFileSync(file, 'utf8').trim(), file)
  }
  return key
}

function parseKey(value: string, name: string): Uint8Array {
  const bytes = /^[0-9a-f]{64}$/i.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64')
  if (bytes.length !== 32) throw new ConfigError(`${name} must be 32 bytes, as base64 or 64 hex characters`)
  return new Uint8Array(bytes)
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim()
  if (!raw) return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`)
  }
  return n
}

function url(env: Env, name: string, fallback: string): string {
  const raw = env[name]?.trim()
  if (!raw) return fallback
  try {
    const u = new URL(raw)
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error()
    return raw.replace(/\/+$/, '')
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`)
  }
}

function oneOf<T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T {
  const raw = env[name]?.trim()
  if (!raw) return fallback
  if (!values.includes(raw as T)) throw new ConfigError(`${name} must be one of ${values.join(', ')}, got "${raw}"`)
  return raw as T
}

function packageVersion(): string {
  try {
    return JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version
  } catch {
    return '0.0.0'
  }
}
