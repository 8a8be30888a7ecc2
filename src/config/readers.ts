// The settings read by more than one rule: the encryption key, the allowed origins, mail, trusted proxies, model
// aliases, the keyword copies' budget and the version.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { isIP } from 'node:net'
import { join, resolve } from 'node:path'
import { ConfigError, type Env, readInt } from './parsers'

/** The service's two models (ai/models.ts names them for the code): what a model alias can point at. */
export const SERVICE_MODELS = ['service-rag', 'service-embed'] as const
export type ServiceModel = (typeof SERVICE_MODELS)[number]

/** True when the embedded database lives only in memory (tests); then nothing is written to disk. */
export function isInMemory(config: { dataDir: string }): boolean {
  return config.dataDir === 'memory://'
}

/**
 * ENCRYPTION_KEY is 32 bytes as base64 or 64 hex characters. On the embedded default a missing key is
 * generated once and kept in DATA_DIR/encryption.key, so secrets stay readable across restarts;
 * with DATABASE_URL several processes share the data, so the key must be given.
 */
export function encryptionKey(env: Env, dataDir: string, databaseUrl: string | null): Uint8Array {
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

/** ALLOWED_ORIGINS reduced to origins, with the service's own first, each once. */
export function allowedOrigins(env: Env, baseUrl: string): string[] {
  const origins = (env.ALLOWED_ORIGINS ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean)
    .map(parseOrigin)
  return [...new Set([new URL(baseUrl).origin, ...origins])]
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

/** SMTP_URL (smtp:// or smtps://, user and password in it when the server wants them) and MAIL_FROM (default
 * no-reply@ the BASE_URL's host); null without SMTP_URL. */
export function mailConfig(env: Env, baseUrl: string): { smtpUrl: string; from: string } | null {
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
export function trustProxy(env: Env): boolean | string[] {
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

/** MODEL_ALIASES: comma-separated `alias=service-rag|service-embed`; a bad entry is named in the error. */
export function modelAliases(env: Env): Map<string, ServiceModel> {
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

/**
 * The keyword copies' budget: KEYWORD_MEMORY_MAX_BYTES, 0 = off. The default, 256 MiB, holds ~6.3 bytes a
 * posting: 100k SciFact-sized documents (10.7M postings) take ~66 MB of it, so ~390k such documents fit. The
 * budget was once counted in postings: KEYWORD_MEMORY_MAX_POSTINGS still sets it, at 8 bytes a posting as it said.
 */
export const KEYWORD_MEMORY_DEFAULT_BYTES = 256 * 1024 ** 2
export function keywordCacheBytes(env: Env): number {
  if (env.KEYWORD_MEMORY_MAX_BYTES === undefined && env.KEYWORD_MEMORY_MAX_POSTINGS !== undefined) {
    return 8 * readInt(env, 'KEYWORD_MEMORY_MAX_POSTINGS', 0, 0, Number.MAX_SAFE_INTEGER / 8)
  }
  return readInt(env, 'KEYWORD_MEMORY_MAX_BYTES', KEYWORD_MEMORY_DEFAULT_BYTES, 0, Number.MAX_SAFE_INTEGER)
}

/** npm_package_version (set by `bun run`), else package.json's. */
export function version(env: Env): string {
  if (env.npm_package_version !== undefined) return env.npm_package_version
  try {
    return JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version
  } catch {
    return '0.0.0'
  }
}
