// Search: the query, mode and filters live in the URL (/app/search?q=…, as the extension opens it); results
// show the title and snippet with the searched words marked, "why this result" in words (listing exactly the words
// marked; ranks and scores on hover), and the service's notice. A message reads "<speaker> · <time>" and opens in its
// conversation, scrolled to it; a passage of an uploaded file says where it was ("p. 14") and opens the document there.
import { useEffect, useState } from 'preact/hooks'
import { api, unwrap } from '../api/client'
import type { paths } from '../api/schema'
import { plural } from '../lib/format'
import { highlight, type Piece } from '../lib/highlight'
import { markdownToText } from '../lib/markdown'
import { FILTER_KINDS, oneOf, SOURCES } from '../lib/kinds'
import { documentAt, shownLabel } from '../lib/file-places'
import { documentHref, documentLabel } from '../lib/messages'
import { navigate, usePlace, withQuery } from '../lib/router'
import { useApi } from '../lib/use-api'
import { useWorkspaces } from '../lib/workspaces'
import { explain } from '../lib/why'
import { DocMeta, Tags } from '../ui/doc-list'
import { Filters, type FilterValues } from '../ui/filters'
import { Link } from '../ui/link'
import { PageTitle } from '../ui/page'
import { Empty, Loaded } from '../ui/states'

type Result = paths['/api/search']['get']['responses']['200']['content']['application/json']['results'][number]
const MODES = ['hybrid', 'keyword', 'semantic'] as const

export function Search() {
  const { query } = usePlace()
  const { current } = useWorkspaces()
  const q = query.get('q') ?? ''
  const mode = oneOf(MODES, query.get('mode'))
  const filters: FilterValues = { kind: query.get('kind') ?? '', tag: query.get('tag') ?? '', source: query.get('source') ?? '' }
  const [text, setText] = useState(q)
  useEffect(() => setText(q), [q])

  const params = {
    q,
    mode,
    workspace_id: current || undefined,
    kind: oneOf(FILTER_KINDS, filters.kind),
    tag: filters.tag || undefined,
    source: oneOf(SOURCES, filters.source),
    limit: 20,
  }
  const search = useApi(
    async (signal) => (q.trim() ? unwrap(api.GET('/api/search', { params: { query: params }, signal })) : null),
    [JSON.stringify(params)],
  )
  const go = (next: { q?: string; mode?: string } & FilterValues) => navigate(withQuery('/app/search', { q, mode, ...filters, ...next }))

  return (
    <section>
      <PageTitle title={q ? `Search: ${q}` : 'Search'} />
      <form role="search" class="search-form row" onSubmit={(e) => (e.preventDefault(), go({ q: text.trim() }))}>
        <label class="grow">
          <span class="visually-hidden">Search your memory</span>
          <input
            type="search"
            name="q"
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
            placeholder="Search your memory"
            autoFocus={!q}
          />
        </label>
        <label>
          Mode
          <select value={mode ?? ''} onChange={(e) => go({ mode: e.currentTarget.value })}>
            <option value="">Default</option>
            {MODES.map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>
        </label>
        <button type="submit" class="primary">
          Search
        </button>
      </form>
      <Filters values={filters} withStatus={false} onChange={(next) => go(next)} />
      <Loaded query={search} label="Searching…">
        {(answer) =>
          answer === null ? (
            <Empty>
              <p>Type words to find documents and memories by keyword and by meaning.</p>
            </Empty>
          ) : (
            <>
              <p class="summary" role="status">
                {plural(answer.results.length, 'result')} in {Math.round(answer.took_ms)} ms · {answer.mode}
                {answer.results.length > 0 &&
                  ` · ${answer.matched === 'all' ? 'all words matched' : answer.matched === 'any' ? 'some words matched' : 'matched by meaning'}`}
              </p>
              {answer.notice && (
                <p class="notice" role="note">
                  {answer.notice}
                </p>
              )}
              {answer.results.length === 0 ? (
                <Empty>
                  <p>Nothing found for “{answer.query}”. Try other words, another mode, or fewer filters.</p>
                </Empty>
              ) : (
                <ol class="results">
                  {answer.results.map((result) => (
                    <ResultItem key={result.document.id} result={result} q={answer.query} />
                  ))}
                </ol>
              )}
            </>
          )
        }
      </Loaded>
    </section>
  )
}

function ResultItem({ result, q }: { result: Result; q: string }) {
  // One source of truth: the pieces marked here are the words "why" lists.
  const label = documentLabel(result.document)
  const titled = label === result.document.title
  const title = titled ? highlight(label, q) : [{ text: label, hit: false }]
  const passage = highlight(markdownToText(result.snippet), q)
  return (
    <li class="result">
      <Link href={result.location ? documentAt(result.document.id, result.location) : documentHref(result.document)} class="doc-title">
        <Marked pieces={title} />
      </Link>
      {shownLabel(result.location, result.document.title) && <span class="location">{result.location!.label}</span>}
      <DocMeta doc={result.document} />
      <p class="snippet">
        <Marked pieces={passage} />
      </p>
      <Tags tags={result.document.tags} />
      <Why result={result} q={q} title={title} passage={passage} />
    </li>
  )
}

const Marked = ({ pieces }: { pieces: Piece[] }) => (
  <>{pieces.map((piece, i) => (piece.hit ? <mark key={i}>{piece.text}</mark> : piece.text))}</>
)

/** Why this result is here, in words (the words it marks, where; close in meaning; boosted); ranks and scores on hover. */
export function Why({ result, q, title, passage }: { result: Result; q: string; title: Piece[]; passage: Piece[] }) {
  const why = explain(q, result.signals, result.score, title, passage)
  return (
    <p class="why" title={why.detail}>
      <span class="why-label">Why:</span> {why.text}
      <span class="visually-hidden"> ({why.detail})</span>
    </p>
  )
}
