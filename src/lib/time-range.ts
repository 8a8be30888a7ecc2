// When something happened, as a filter: the `after` and `before` of searches and lists (on documents.occurred_at),
// read strictly from ISO 8601 — a date-time with a time zone, or a plain date meaning its start in UTC — into
// epoch milliseconds; a date the calendar has not (30 February, 24:00) is refused rather than rolled over.
import { badRequest } from '../http/errors'

/** A time filter in epoch milliseconds: `after` inclusive, `before` exclusive. */
export interface TimeRange {
  after?: number
  before?: number
}

export const TIME_FORMS = 'an ISO 8601 date-time with a time zone (2023-05-08T13:56:00Z) or a date (2023-05-08, its start in UTC)'

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/

/** Epoch milliseconds of an ISO 8601 date or date-time (fractions past the millisecond cut, years held to 1–9999), or null. */
export function parseInstant(text: string): number | null {
  const m = DATE.exec(text) ?? DATE_TIME.exec(text)
  if (!m) return null
  const [y, mo, d, h = 0, mi = 0, s = 0] = m.slice(1, 7).map((part) => Number(part ?? 0))
  const fraction = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3))
  const offset = m[9] ? (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11])) : 0
  if (mo! < 1 || mo! > 12 || d! < 1 || h! > 23 || mi! > 59 || s! > 59 || Number(m[10] ?? 0) > 23 || Number(m[11] ?? 0) > 59) return null
  const at = new Date(0)
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0–99 as 1900–1999.
  at.setUTCFullYear(y!, mo! - 1, d!)
  if (at.getUTCMonth() !== mo! - 1) return null
  at.setUTCHours(h!, mi!, s!, fraction)
  // Held to years 1 to 9999 in UTC, as an ISO string writes them for PostgreSQL (which has no year 0): no document
  // happened outside them, so a bound past either end keeps or leaves out the same documents.
  return Math.min(LAST, Math.max(FIRST, at.getTime() - offset * 60_000))
}

const FIRST = Date.parse('0001-01-01T00:00:00Z')
const LAST = Date.parse('9999-12-31T23:59:59.999Z')

/** The request's `after` and `before` (query strings) as a TimeRange; a 400 names the one at fault. */
export function readTimeRange(query: { after?: string; before?: string }): TimeRange {
  const read = (name: 'after' | 'before') => {
    const text = query[name]
    if (text === undefined) return undefined
    const ms = parseInstant(text)
    if (ms === null) throw badRequest(`query.${name}: ${name} must be ${TIME_FORMS}`)
    return ms
  }
  // A window that closes before it opens (or as it opens) holds nothing, so it finds nothing: a plain 200 with no
  // results, as `occurred_at >= after AND occurred_at < before` reads it — not an error, since every client can send it.
  const range = { after: read('after'), before: read('before') }
  return Object.fromEntries(Object.entries(range).filter(([, v]) => v !== undefined))
}
