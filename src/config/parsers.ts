// The readers of one environment variable each (integer, URL, one of a list, text): a blank value is unset, and a
// bad one is a ConfigError whose message names the variable.
export class ConfigError extends Error {}

export type Env = Record<string, string | undefined>

/** The trimmed value, or undefined when unset or blank. */
export function raw(env: Env, name: string): string | undefined {
  return env[name]?.trim() || undefined
}

export function readInt(env: Env, name: string, fallback: number, min: number, max: number): number {
  const value = raw(env, name)
  if (!value) return fallback
  const n = Number(value)
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${value}"`)
  }
  return n
}

/** An http(s) URL without its trailing slashes. */
export function readUrl(env: Env, name: string, fallback: string): string {
  const value = raw(env, name)
  if (!value) return fallback
  try {
    const u = new URL(value)
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error()
    return value.replace(/\/+$/, '')
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL, got "${value}"`)
  }
}

export function readOneOf<T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T {
  const value = raw(env, name)
  if (!value) return fallback
  if (!values.includes(value as T)) throw new ConfigError(`${name} must be one of ${values.join(', ')}, got "${value}"`)
  return value as T
}
