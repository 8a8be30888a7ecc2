// How numbers, sizes and dates read on screen.
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  const units = ['KB', 'MB', 'GB', 'TB']
  let value = bytes / 1024
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`
}

export function formatDate(iso: string): string {
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })
}

export const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString()} ${n === 1 ? one : many}`

/** A score of 0–1 (or any number) to at most three decimals. */
export const formatScore = (n: number | null | undefined) => (n === null || n === undefined ? '—' : Number(n.toFixed(3)).toString())

/** From `first` to `last` in the reader's locale, the shared parts said once ("8 May 2023, 13:56 – 14:30"). */
export function formatSpan(first: string | null, last: string | null): string {
  if (!first || !last) return 'no messages yet'
  const from = new Date(first)
  const to = new Date(last)
  if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime())) return `${first} – ${last}`
  const format = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })
  return from.getTime() >= to.getTime() ? format.format(from) : format.formatRange(from, to)
}

/** How long ago, briefly ("just now", "5 min ago", "3 h ago", "2 days ago"); a date beyond a year (or in the future). */
export function formatAgo(iso: string, now = Date.now()): string {
  const then = new Date(iso).getTime()
  if (Number.isNaN(then)) return iso
  const minutes = Math.floor((now - then) / 60_000)
  if (minutes < -1 || minutes >= 365 * 24 * 60) return new Date(iso).toLocaleDateString(undefined, { dateStyle: 'medium' })
  if (minutes < 1) return 'just now'
  if (minutes < 60) return `${minutes} min ago`
  const hours = Math.floor(minutes / 60)
  if (hours < 24) return `${hours} h ago`
  const days = Math.floor(hours / 24)
  if (days < 30) return days === 1 ? 'yesterday' : `${days} days ago`
  const months = Math.floor(days / 30)
  return months === 1 ? 'a month ago' : `${months} months ago`
}
