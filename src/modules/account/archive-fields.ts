// Reading one record of an archive: each field checked for what the database can store and the service's rules
// allow, and a refusal that names where it is (`documents.jsonl line 17: status …`) — the first bad entry is the answer.
import type { FileSection } from '../../../db/schema'
import { badRequest } from '../../http/errors'

/** A bad archive: 400 naming the entry (and line) and the field. */
export const badEntry = (where: string, problem: string) => badRequest(`${where}: ${problem}`)

/** True for text PostgreSQL stores as it is: well-formed Unicode without NUL (the input guard's rule for requests). */
export const storable = (s: string) => !s.includes('\u0000') && s.isWellFormed()

/** Every string and key of a JSON value storable (metadata comes from the archive, not through the input guard). */
function storableJson(value: unknown): boolean {
  if (typeof value === 'string') return storable(value)
  if (Array.isArray(value)) return value.every(storableJson)
  if (value && typeof value === 'object') return Object.entries(value).every(([k, v]) => storable(k) && storableJson(v))
  return true
}

export class Fields {
  constructor(
    private readonly record: Record<string, unknown>,
    readonly where: string,
  ) {}

  static of(value: unknown, where: string): Fields {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw badEntry(where, 'must be a JSON object')
    return new Fields(value as Record<string, unknown>, where)
  }

  fail(field: string, problem: string): never {
    throw badEntry(this.where, `${field} ${problem}`)
  }

  text(field: string, max: number, min = 0): string {
    const v = this.record[field]
    if (typeof v !== 'string') this.fail(field, 'must be a string')
    if (!storable(v)) this.fail(field, 'must be Unicode text without NUL')
    if (v.length < min || v.length > max) this.fail(field, `must be ${min} to ${max} characters`)
    return v
  }

  optionalText(field: string, max: number): string | null {
    return this.record[field] === null || this.record[field] === undefined ? null : this.text(field, max)
  }

  oneOf<T extends string>(field: string, values: readonly T[]): T {
    const v = this.record[field]
    if (typeof v !== 'string' || !(values as readonly string[]).includes(v)) this.fail(field, `must be one of ${values.join(', ')}`)
    return v as T
  }

  bool(field: string, fallback?: boolean): boolean {
    const v = this.record[field] ?? fallback
    if (typeof v !== 'boolean') this.fail(field, 'must be true or false')
    return v
  }

  int(field: string, min: number, max: number): number {
    const v = this.record[field]
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) this.fail(field, `must be an integer from ${min} to ${max}`)
    return v
  }

  number(field: string): number {
    const v = this.record[field]
    if (typeof v !== 'number' || !Number.isFinite(v)) this.fail(field, 'must be a finite number')
    return v
  }

  /** An ISO 8601 date-time, given back in the form export writes. */
  time(field: string): string {
    const v = this.text(field, 40)
    const at = new Date(v)
    if (Number.isNaN(at.getTime()) || !/^\d{4}-\d{2}-\d{2}T/.test(v)) this.fail(field, 'must be an ISO 8601 date-time')
    return at.toISOString()
  }

  strings(field: string, maxItems: number, maxLength: number): string[] {
    const v = this.record[field] ?? []
    if (!Array.isArray(v) || v.length > maxItems) this.fail(field, `must be a list of at most ${maxItems} strings`)
    for (const item of v)
      if (typeof item !== 'string' || !storable(item) || item.length > maxLength)
        this.fail(field, `must hold strings of at most ${maxLength} characters`)
    return v as string[]
  }

  /**
   * A file's sections ([{ start, page?, slide?, sheet?, heading? }] by body offset, ascending, within `bodyLength`),
   * or null: where each part of an uploaded file's text was in the file.
   */
  sections(field: string, bodyLength: number): FileSection[] | null {
    const v = this.record[field]
    if (v === null || v === undefined) return null
    if (!Array.isArray(v) || v.length > 100_000) this.fail(field, 'must be null or a list of sections')
    let last = -1
    return v.map((s, i) => {
      const at = Fields.of(s, `${this.where} ${field}[${i}]`)
      const start = at.int('start', 0, bodyLength)
      if (start <= last) at.fail('start', "must be after the previous section's")
      last = start
      const section: FileSection = { start }
      if (at.has('page')) section.page = at.int('page', 1, 1_000_000)
      if (at.has('slide')) section.slide = at.int('slide', 1, 1_000_000)
      if (at.has('sheet')) section.sheet = at.text('sheet', 500, 1)
      if (at.has('heading')) section.heading = at.text('heading', 2000, 1)
      return section
    })
  }

  has(field: string): boolean {
    return this.record[field] !== undefined && this.record[field] !== null
  }

  object(field: string, nullable = false): Record<string, unknown> | null {
    const v = this.record[field]
    if (v === null && nullable) return null
    if (v === null || typeof v !== 'object' || Array.isArray(v)) this.fail(field, 'must be a JSON object')
    if (!storableJson(v)) this.fail(field, 'must hold Unicode text without NUL')
    return v as Record<string, unknown>
  }
}

/** The lines of a .jsonl entry, each parsed, with its 1-based line number; blank lines are allowed. */
export function* jsonLines(name: string, text: string): Generator<{ value: unknown; where: string }> {
  const lines = text.split('\n')
  for (const [i, raw] of lines.entries()) {
    const source = raw.endsWith('\r') ? raw.slice(0, -1) : raw
    if (source.trim() === '') continue
    const where = `${name} line ${i + 1}`
    let value: unknown
    try {
      value = JSON.parse(source)
    } catch {
      throw badEntry(where, 'is not valid JSON')
    }
    yield { value, where }
  }
}

/** An entry's bytes as UTF-8 text, or 400 naming it. */
export function textOf(name: string, bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw badEntry(name, 'is not valid UTF-8')
  }
}
