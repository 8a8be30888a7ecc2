// Where a passage of a file's text was in the file (each chunk knows its section: chunking.ts chunkSections), as
// results and citations name it: "p. 14", "slide 3", "sheet Sales".
import type { FileLocation } from '../../db/schema'

/** A location as results and citations show it: its parts and its label; null when it names nothing. */
function shownLocation(location: FileLocation | null | undefined): (FileLocation & { label: string }) | null {
  const label = locationLabel(location)
  return label === null ? null : { ...location!, label }
}

/** `{ location }` for a result or a source whose passage names a place in its file, else nothing to spread. */
export function locationField(location: FileLocation | null | undefined): { location?: FileLocation & { label: string } } {
  const shown = shownLocation(location)
  return shown ? { location: shown } : {}
}

/** "p. 14", "slide 3", "sheet Sales", else the heading; null when the location names nothing. */
function locationLabel(location: FileLocation | null | undefined): string | null {
  if (!location) return null
  if (location.page !== undefined) return `p. ${location.page}`
  if (location.slide !== undefined) return `slide ${location.slide}`
  if (location.sheet !== undefined) return `sheet ${location.sheet}`
  return location.heading ?? null
}
