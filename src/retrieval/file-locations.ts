// Where a passage of a file's text was in the file: the section (page, slide, sheet, heading) holding a body
// offset, and how a citation names it ("p. 14", "slide 3", "sheet Sales").
import type { FileLocation, FileSection } from '../../db/schema'

/** The location of the section that holds `offset` (past leading whitespace), or null for a text without sections. */
export function locationAt(sections: FileSection[] | null | undefined, body: string, offset: number): FileLocation | null {
  if (!sections?.length) return null
  let at = offset
  while (at < body.length && /\s/.test(body[at]!)) at++
  let found: FileSection | undefined
  for (const s of sections) {
    if (s.start > at) break
    found = s
  }
  if (!found) return null
  const { start: _, ...location } = found
  return Object.keys(location).length ? location : null
}

/** A location as results and citations show it: its parts and its label; null when it names nothing. */
export function shownLocation(location: FileLocation | null | undefined): (FileLocation & { label: string }) | null {
  const label = locationLabel(location)
  return label === null ? null : { ...location!, label }
}

/** "p. 14", "slide 3", "sheet Sales", else the heading; null when the location names nothing. */
export function locationLabel(location: FileLocation | null | undefined): string | null {
  if (!location) return null
  if (location.page !== undefined) return `p. ${location.page}`
  if (location.slide !== undefined) return `slide ${location.slide}`
  if (location.sheet !== undefined) return `sheet ${location.sheet}`
  return location.heading ?? null
}
