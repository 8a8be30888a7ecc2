// Beside a draft: the memory it would supersede (the two side by side), and the existing memories most like
// it (possible duplicates), found by searching its workspace for its title and excerpt.
import { api, ApiError, unwrap } from '../api/client'
import type { Draft } from '../lib/drafts'
import { formatScore } from '../lib/format'
import { MEMORY_KINDS } from '../lib/memory-kinds'
import { markdownToText } from '../lib/markdown'
import { useApi } from '../lib/use-api'
import { Link } from '../ui/link'
import { Markdown } from '../ui/markdown'
import { Loaded } from '../ui/states'

/** The current memory and the proposed replacement, side by side. */
export function Supersedes({ draft, id }: { draft: Draft; id: string }) {
  const memory = useApi(
    (signal) =>
      unwrap(api.GET('/api/documents/{id}', { params: { path: { id } }, signal })).catch((error: unknown) => {
        if (error instanceof ApiError && error.status === 404) return null
        throw error
      }),
    [id],
  )
  return (
    <div class="compare" role="group" aria-label="The memory it replaces, beside the proposal">
      <section class="compare-side current" aria-label="Now">
        <p class="compare-label">Now{memory.data && memory.data.status !== 'active' ? ` (${memory.data.status.replace('_', ' ')})` : ''}</p>
        <Loaded query={memory} label="Loading the memory it replaces…">
          {(current) =>
            current ? (
              <>
                <p class="compare-title">
                  <Link href={`/app/documents/${current.id}`}>{current.title}</Link>
                </p>
                <Markdown source={current.body} shift={3} />
              </>
            ) : (
              <p class="hint">The memory it would replace no longer exists.</p>
            )
          }
        </Loaded>
      </section>
      <section class="compare-side proposed" aria-label="Proposed">
        <p class="compare-label">Proposed</p>
        <p class="compare-title">{draft.title}</p>
        <Markdown source={draft.body} shift={3} />
      </section>
    </div>
  )
}

/** What to search for: the draft's title and the start of its text (a search is cut at a few hundred characters anyway). */
const queryOf = (draft: Draft) => `${draft.title} ${markdownToText(draft.excerpt)}`.slice(0, 300)

/** Active memories of the draft's workspace that read like it, best first (at most three). */
export function Similar({ draft, exclude }: { draft: Draft; exclude?: string }) {
  const found = useApi(
    (signal) =>
      unwrap(api.GET('/api/search', { params: { query: { q: queryOf(draft), workspace_id: draft.workspace_id, limit: 10 } }, signal })),
    [draft.id, draft.title, draft.excerpt],
  )
  return (
    <section class="similar" aria-label="Similar memories">
      <p class="compare-label">Similar memories (possible duplicates)</p>
      <Loaded query={found} label="Looking for similar memories…">
        {(answer) => {
          const memories = answer.results
            .filter((r) => MEMORY_KINDS.includes(r.document.kind as never) && r.document.id !== draft.id && r.document.id !== exclude)
            .slice(0, 3)
          if (!memories.length) return <p class="hint">None found: this looks new.</p>
          return (
            <ul class="similar-list">
              {memories.map((r) => (
                <li key={r.document.id}>
                  <Link href={`/app/documents/${r.document.id}`}>{r.document.title}</Link> <span class="kind">{r.document.kind}</span>{' '}
                  <span class="hint">score {formatScore(r.score)}</span>
                  <p class="similar-snippet">{markdownToText(r.snippet)}</p>
                </li>
              ))}
            </ul>
          )
        }}
      </Loaded>
    </section>
  )
}
