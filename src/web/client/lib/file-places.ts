// Places in an uploaded file: a result's or a citation's location as a link (/app/documents/<id>?page=14), and the
// document's body cut into its sections (pages, slides, sheets, headings) so the page opens at the one linked.
import type { paths } from '../api/schema'

type DocumentBody = paths['/api/documents/{id}']['get']['responses']['200']['content']['application/json']
export type FileSection = NonNullable<DocumentBody['sections']>[number]

export interface FilePlace {
  page?: number
  slide?: number
  sheet?: string
  heading?: string
}

/** The query naming `place`: the page, the slide or the sheet when there is one, else the heading. */
function placeQuery(place: FilePlace): string {
  if (place.page !== undefined) return `page=${place.page}`
  if (place.slide !== undefined) return `slide=${place.slide}`
  if (place.sheet !== undefined) return `sheet=${encodeURIComponent(place.sheet)}`
  if (place.heading !== undefined) return `heading=${encodeURIComponent(place.heading)}`
  return ''
}

/** The document's page, opened at `place` when there is one. */
export function documentAt(id: string, place?: FilePlace | null): string {
  const query = place ? placeQuery(place) : ''
  return `/app/documents/${id}${query ? `?${query}` : ''}`
}

/** The place a document's URL asks for, or null. */
export function placeIn(query: URLSearchParams): FilePlace | null {
  const number = (key: string) => {
    const n = Number(query.get(key))
    return Number.isInteger(n) && n > 0 ? n : undefined
  }
  const place: FilePlace = {
    page: number('page'),
    slide: number('slide'),
    sheet: query.get('sheet') ?? undefined,
    heading: query.get('heading') ?? undefined,
  }
  return Object.values(place).some((v) => v !== undefined) ? place : null
}

export interface Part {
  section: FileSection
  text: string
}

/** The body in its sections' pieces (each from its start to the next one's), in order. */
export function partsOf(body: string, sections: readonly FileSection[]): Part[] {
  return sections.map((section, i) => ({ section, text: body.slice(section.start, sections[i + 1]?.start ?? body.length).trim() }))
}

/** The index of the first part `place` names, or -1. */
export function partAt(parts: readonly Part[], place: FilePlace): number {
  const key = (['page', 'slide', 'sheet', 'heading'] as const).find((k) => place[k] !== undefined)
  return key ? parts.findIndex((p) => p.section[key] === place[key]) : -1
}

/** A section's own name on screen ("Page 2", "Slide 3", "Sheet Costs"), or null (a heading is in its text already). */
export function partLabel(section: FileSection): string | null {
  if (section.page !== undefined) return `Page ${section.page}`
  if (section.slide !== undefined) return `Slide ${section.slide}`
  if (section.sheet !== undefined) return `Sheet ${section.sheet}`
  return null
}

/** The label shown beside a title ("p. 14"); none when it only repeats the title (a note's one heading). */
export const shownLabel = (location: { label: string } | null | undefined, title: string | null): string | null =>
  location && location.label !== title ? location.label : null
