// What a row of the settings table is (its variables, its reader, its README words), the constructors of the
// common kinds, and the two things done with a table: read it into a Config, list its README rows.
import { type Env, raw, readInt, readOneOf, readUrl } from './parsers'

/** One line of the README's table: a variable (or a family, `PLAN_<PLAN>_<LIMIT>`), its default, its meaning. */
export interface Row {
  env: string
  /** Markdown; null shows as "—" (unset). */
  default: string | null
  doc: string
}

/** What a reader is handed: the environment, and the value of any other setting (each read once per load). */
export interface Reading {
  env: Env
  get<T>(setting: Setting<T>): T
}

export interface Setting<T> {
  readonly rows: readonly Row[]
  readonly read: (reading: Reading) => T
}

/** A nested object of settings: its shape is the Config's. */
export type Table = { readonly [key: string]: Setting<unknown> | Table }

/** The value a table reads into: each setting replaced by what it reads. */
export type ConfigOf<T extends Table> = {
  -readonly [K in keyof T]: T[K] extends Setting<infer V> ? V : T[K] extends Table ? ConfigOf<T[K]> : never
}

/** A default that depends on other settings, with the words the README shows for it. */
export interface Derived<D> {
  shown: string
  value: (reading: Reading) => D
}
export const derived = <D>(shown: string, value: (reading: Reading) => D): Derived<D> => ({ shown, value })

type Default<D> = D | Derived<D>
const isDerived = <D>(d: Default<D>): d is Derived<D> => typeof d === 'object' && d !== null && 'shown' in d
const fallback = <D>(d: Default<D>, reading: Reading): D => (isDerived(d) ? d.value(reading) : d)
const shown = (d: Default<unknown>): string | null => (isDerived(d) ? d.shown : d === null ? null : `\`${d}\``)

interface Common<D> {
  env: string
  default: Default<D>
  doc: string
}

/** Any reader, for what the kinds below do not cover; its rows say which variables it reads. */
export function custom<T>(rows: Row[], read: (reading: Reading) => T): Setting<T> {
  return { rows, read }
}

/** An integer from min to max; `times` scales it (seconds → milliseconds); default null: unset reads as null. */
export function int<D extends number | null>(
  o: Common<D> & { min: number; max: number; times?: number; shown?: string },
): Setting<number | D> {
  return custom([{ env: o.env, default: o.shown ?? shown(o.default), doc: o.doc }], (reading) => {
    const n = raw(reading.env, o.env) ? readInt(reading.env, o.env, 0, o.min, o.max) : fallback(o.default, reading)
    return (n === null ? n : n * (o.times ?? 1)) as number | D
  })
}

/** One of a list of words; default null: unset reads as null. */
export function oneOf<const V extends string, D extends V | null>(o: Common<D> & { values: readonly V[] }): Setting<V | D> {
  return custom([{ env: o.env, default: shown(o.default), doc: o.doc }], (reading) => {
    if (!raw(reading.env, o.env)) return fallback(o.default, reading)
    return readOneOf<V>(reading.env, o.env, o.values, o.values[0]!)
  })
}

/** An http(s) URL, trailing slashes dropped; default null: unset reads as null. */
export function url<D extends string | null>(o: Common<D>): Setting<string | D> {
  return custom([{ env: o.env, default: shown(o.default), doc: o.doc }], (reading) => {
    if (!raw(reading.env, o.env)) return fallback(o.default, reading)
    return readUrl(reading.env, o.env, '')
  })
}

/** Text, trimmed; `check` refuses a value by throwing a ConfigError. Unset or blank reads as the default (null when none). */
export function text<D extends string | null = null>(
  o: Omit<Common<D>, 'default'> & { default?: Default<D>; check?: (value: string) => void },
): Setting<string | D> {
  const d = (o.default ?? null) as Default<D>
  return custom([{ env: o.env, default: shown(d), doc: o.doc }], (reading) => {
    const value = raw(reading.env, o.env)
    if (!value) return fallback(d, reading)
    o.check?.(value)
    return value
  })
}

/** `true` or `false`. */
export function flag(o: Common<boolean>): Setting<boolean> {
  const words = oneOf({ ...o, values: ['true', 'false'], default: o.default ? 'true' : 'false' })
  return custom(words.rows.slice(), (reading) => words.read(reading) === 'true')
}

/** The table read from `env`, in the table's order; a setting met twice (or asked for by another) is read once. */
export function readTable<T extends Table>(table: T, env: Env): ConfigOf<T> {
  const values = new Map<Setting<unknown>, unknown>()
  const reading: Reading = {
    env,
    get<V>(setting: Setting<V>): V {
      if (!values.has(setting)) values.set(setting, setting.read(reading))
      return values.get(setting) as V
    },
  }
  const walk = (node: Table): Record<string, unknown> =>
    Object.fromEntries(Object.entries(node).map(([key, child]) => [key, isSetting(child) ? reading.get(child) : walk(child)]))
  return walk(table) as ConfigOf<T>
}

/** Every README row of the table, in its order; a setting met twice gives its rows once. */
export function tableRows(table: Table): Row[] {
  const seen = new Set<Setting<unknown>>()
  const walk = (node: Table): Row[] =>
    Object.values(node).flatMap((child) => {
      if (!isSetting(child)) return walk(child)
      if (seen.has(child)) return []
      seen.add(child)
      return [...child.rows]
    })
  return walk(table)
}

function isSetting(node: Setting<unknown> | Table): node is Setting<unknown> {
  return 'read' in node && typeof node.read === 'function'
}
