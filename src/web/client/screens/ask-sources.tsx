// The sources panel: what the selected answer was given, numbered as it cites them — the cited ones by default (they
// arrive with the answer's first words and show as the answer cites them), every one on request; a citation focuses
// its source here. Titles open the document (at the page, slide or sheet of a file's passage, which is named beside it); a
// forgotten document says so instead of quoting it.
import { useEffect, useRef, useState } from 'preact/hooks'
import type { Source } from '../lib/chat'
import { documentAt, shownLabel } from '../lib/file-places'
import { plural } from '../lib/format'
import type { TurnState } from '../lib/use-chat'
import { safeHref } from '../lib/safe-url'
import { Link } from '../ui/link'

interface Props {
  sources: Source[] | undefined
  /** The source a citation asked for (0: none), with a counter so asking twice focuses it again. */
  focus: { index: number; round: number }
  /** How the shown answer stands: no answer yet, still streaming, or ended (stopped, failed) before its sources. */
  state: TurnState | undefined
  /** The source numbers the answer cites so far (citedIndexes of its text). */
  cited: number[]
}

export function SourcesPanel({ sources, focus, state, cited }: Props) {
  const list = useRef<HTMLOListElement>(null)
  const [all, setAll] = useState(false)
  // Each answer opens on its cited sources.
  useEffect(() => setAll(false), [sources])
  // An answer that cites none (yet, or at all) shows what it was given: there is nothing to narrow to.
  const citedSources = sources?.filter((s) => cited.includes(s.index)) ?? []
  const narrowed = !!sources && citedSources.length > 0 && citedSources.length < sources.length
  const shown = narrowed && !all ? citedSources : sources
  useEffect(() => {
    if (!focus.index) return
    const item = list.current?.querySelector<HTMLElement>(`[data-index="${focus.index}"]`)
    item?.focus()
    item?.scrollIntoView({ block: 'nearest' })
  }, [focus.round, sources, all])
  return (
    <aside class="sources card" aria-labelledby="sources-heading">
      <h2 id="sources-heading">Sources</h2>
      {!sources ? (
        <p class="hint">
          {state === 'streaming'
            ? 'The sources arrive as the answer is written.'
            : state
              ? 'This answer ended before its sources arrived.'
              : 'Ask a question: the passages the answer quotes appear here.'}
        </p>
      ) : sources.length === 0 ? (
        <p class="hint">No document matched this question.</p>
      ) : (
        <>
          {narrowed && (
            <p class="sources-shown hint">
              {all ? `All ${sources.length} sources the answer was given` : `The ${plural(citedSources.length, 'source')} cited`}{' '}
              <button type="button" class="quiet small" aria-expanded={all} aria-controls="source-list" onClick={() => setAll(!all)}>
                {all ? `Show only the ${citedSources.length} cited` : `Show all ${sources.length} sources`}
              </button>
            </p>
          )}
          <ol class="source-list" id="source-list" ref={list}>
            {shown!.map((s) => (
              <li key={s.index} data-index={s.index} tabIndex={-1} class={s.index === focus.index ? 'active' : ''}>
                <p class="source-title">
                  <span class="source-n">[{s.index}]</span>{' '}
                  {s.forgotten ? (
                    <span>A forgotten document</span>
                  ) : (
                    <Link href={documentAt(s.document_id, s.location)}>{s.title || 'Untitled'}</Link>
                  )}
                  {!s.forgotten && shownLabel(s.location, s.title) && <span class="location">{s.location!.label}</span>}
                </p>
                {s.excerpt && <p class="source-excerpt">{s.excerpt}</p>}
                {s.url && safeHref(s.url) && (
                  <a class="source-url" href={safeHref(s.url)!} target="_blank" rel="noopener noreferrer nofollow">
                    {s.url}
                  </a>
                )}
              </li>
            ))}
          </ol>
        </>
      )}
    </aside>
  )
}
