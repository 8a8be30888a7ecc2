// PostgreSQL's text of a timestamptz, rewritten as ISO 8601 for the drivers to hand on. Drizzle and raw queries
// both read a timestamp with `new Date(text)`, and JavaScript parses PostgreSQL's form ("0024-01-19 19:11:25+00")
// with its legacy rules: a year below 100 becomes 19xx or 20xx, or an Invalid Date whose toISOString throws.
// ISO 8601 ("0024-01-19T19:11:25+00:00", BC years as signed astronomical years) parses exactly, any year.

const PG_TIMESTAMP = /^(\d{4,})-(\d\d)-(\d\d) (\d\d:\d\d:\d\d(?:\.\d+)?)(?:([+-]\d\d)(?::(\d\d))?)?( BC)?$/

/** ISO 8601 for PostgreSQL's text of a timestamp (with or without zone); anything else (infinity) unchanged. */
export function pgTimestampToIso(text: string): string {
  const m = PG_TIMESTAMP.exec(text)
  if (!m) return text
  const [, year, month, day, time, offsetHours, offsetMinutes, bc] = m
  // 1 BC is year 0 in ISO 8601, 2 BC is -1, and so on.
  const y = bc ? 1 - Number(year) : Number(year)
  const isoYear = y >= 0 && y <= 9999 ? String(y).padStart(4, '0') : `${y < 0 ? '-' : '+'}${String(Math.abs(y)).padStart(6, '0')}`
  const offset = offsetHours ? `${offsetHours}:${offsetMinutes ?? '00'}` : ''
  return `${isoYear}-${month}-${day}T${time}${offset}`
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0')

/**
 * An instant as PostgreSQL's own text, which it reads for any year a JavaScript Date has: ISO 8601's year 0000
 * ("0001-01-01T00:30:00+01:00" in UTC) and the years before it are BC years there, which an ISO string
 * (Date.toISOString) cannot say — PostgreSQL refused it ("date/time field value out of range"), a 500.
 */
export function pgTimestampText(at: Date): string {
  const y = at.getUTCFullYear()
  const date = `${pad(y > 0 ? y : 1 - y, 4)}-${pad(at.getUTCMonth() + 1)}-${pad(at.getUTCDate())}`
  const time = `${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())}:${pad(at.getUTCSeconds())}.${pad(at.getUTCMilliseconds(), 3)}`
  return `${date} ${time}+00${y > 0 ? '' : ' BC'}`
}
