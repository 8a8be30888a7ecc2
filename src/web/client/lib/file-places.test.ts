// A file's place as a link and back, and its body cut at its sections: the page a citation names is the part opened.
import { describe, expect, test } from 'bun:test'
import { documentAt, partAt, partsOf, placeIn, shownLabel } from './file-places'

const id = '01a22066-9464-76cc-90cf-f6657c9eb87b'

describe('file places', () => {
  test('a location becomes the document link and the link reads back as the same place', () => {
    expect(documentAt(id, { page: 14 })).toBe(`/app/documents/${id}?page=14`)
    expect(documentAt(id, { slide: 3, heading: 'Plan' })).toBe(`/app/documents/${id}?slide=3`)
    expect(documentAt(id, { sheet: 'Costs & fees' })).toBe(`/app/documents/${id}?sheet=Costs%20%26%20fees`)
    expect(documentAt(id, null)).toBe(`/app/documents/${id}`)
    expect(placeIn(new URL(`http://x${documentAt(id, { sheet: 'Costs & fees' })}`).searchParams)).toEqual({ sheet: 'Costs & fees' })
    // A page that is not a positive whole number names nothing.
    expect(placeIn(new URLSearchParams('page=0'))).toBeNull()
    expect(placeIn(new URLSearchParams('page=2.5&view=document'))).toBeNull()
  })

  test('the body is cut where each section starts, and a place picks the first part it names', () => {
    const body = 'Page one text\n\nPage two text\n\nPage three text'
    const parts = partsOf(body, [
      { start: 0, page: 1 },
      { start: 15, page: 2 },
      { start: 30, page: 3 },
    ])
    expect(parts.map((p) => p.text)).toEqual(['Page one text', 'Page two text', 'Page three text'])
    expect(partAt(parts, { page: 2 })).toBe(1)
    expect(partAt(parts, { page: 9 })).toBe(-1)
    const sheets = partsOf('a\n\nb\n\nc', [
      { start: 0, sheet: 'Costs' },
      { start: 3, sheet: 'Costs' },
      { start: 6, sheet: 'Sales' },
    ])
    expect(partAt(sheets, { sheet: 'Costs' })).toBe(0)
    expect(partAt(sheets, { sheet: 'Sales' })).toBe(2)
  })

  test('the label beside a title is left out when it only repeats the title', () => {
    expect(shownLabel({ label: 'p. 2' }, 'Field report')).toBe('p. 2')
    expect(shownLabel({ label: 'Incident review' }, 'Incident review')).toBeNull()
    expect(shownLabel(undefined, 'Field report')).toBeNull()
  })
})
