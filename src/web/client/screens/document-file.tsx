// An uploaded document's file (name, format, size, pages, whether it was read, and the original to download) and its
// text by section — page, slide or sheet — opened at the one a search result or a citation links to (?page=2).
import { useLayoutEffect, useRef } from 'preact/hooks'
import { formatBytes, plural } from '../lib/format'
import { partAt, partLabel, partsOf, type FilePlace } from '../lib/file-places'
import { Markdown } from '../ui/markdown'
import type { Doc } from './document-doc'

type FileInfo = NonNullable<Doc['file']>

/** What a file's `pages` counts: a deck's slides, a workbook's sheets, else pages. */
function counted(file: FileInfo): string {
  if (file.pages === null) return '—'
  if (/^(pptx|odp)$/.test(file.format)) return plural(file.pages, 'slide')
  if (/^(xlsx|ods|csv)$/.test(file.format)) return plural(file.pages, 'sheet')
  return plural(file.pages, 'page')
}

export function FileDetails({ id, file }: { id: string; file: FileInfo }) {
  const rows: [string, string][] = [
    ['Name', file.name],
    ['Format', file.format.toUpperCase()],
    ['Size', formatBytes(file.size_bytes)],
    ['Length', counted(file)],
  ]
  return (
    <section class="card details file-details" aria-labelledby="file-heading">
      <h2 id="file-heading">File</h2>
      <dl>
        {rows.map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
        <div>
          <dt>Read</dt>
          <dd>
            {file.status === 'processing' ? (
              'Reading…'
            ) : file.status === 'failed' ? (
              <span class="error-text">{file.error || 'the file could not be read'}</span>
            ) : (
              'Yes'
            )}
          </dd>
        </div>
      </dl>
      {/* The service answers it as an attachment (and sandboxed): it downloads, never opens as a page of this site. */}
      <a class="button" href={`/api/documents/${id}/file`} download={file.name}>
        Download original
      </a>
    </section>
  )
}

/** The body section by section, scrolled to and marking the section `place` names. */
export function FileBody({ doc, place }: { doc: Doc & { sections: NonNullable<Doc['sections']> }; place: FilePlace | null }) {
  const parts = partsOf(doc.body, doc.sections)
  const target = place ? partAt(parts, place) : -1
  const list = useRef<HTMLDivElement>(null)
  // Before the first paint, after the screen's heading (PageTitle, earlier in the tree) has taken focus: the section keeps it.
  useLayoutEffect(() => {
    if (target < 0) return
    const element = list.current?.querySelector<HTMLElement>(`[data-part="${target}"]`)
    element?.scrollIntoView({ block: 'start' })
    element?.focus({ preventScroll: true })
  }, [doc.id, target])
  let previous: string | null = null
  return (
    <div class="file-parts" ref={list}>
      {target < 0 && place && (
        <p class="notice" role="note">
          This link points at a part of the file the text no longer has: it was edited or read again.
        </p>
      )}
      {parts.map((part, i) => {
        const label = partLabel(part.section)
        const shown = label && label === previous ? `${label} (continued)` : label
        previous = label
        return (
          <section key={i} data-part={i} class={`file-part${i === target ? ' target' : ''}`} tabIndex={i === target ? -1 : undefined}>
            {shown && (
              <h2 class="part-label">
                {shown}
                {i === target && <span class="linked">linked</span>}
              </h2>
            )}
            <Markdown source={part.text} shift={shown ? 2 : 1} />
          </section>
        )
      })}
    </div>
  )
}
