// Beside a draft: what it changes in the memory it would supersede (a word diff, old memory → proposal), and the
// existing memories most like it (possible duplicates), found by searching its workspace for its title and excerpt,
// each to compare with, merge the draft into (approved as its update) or reject the draft as a duplicate of.
import { useState } from 'preact/hooks'
import { api, ApiError, unwrap } from '../api/client'
import type { Draft } from '../lib/drafts'
import { formatScore } from '../lib/format'
import { MEMORY_KINDS } from '../lib/memory-kinds'
import { markdownToText } from '../lib/markdown'
import { useApi } from '../lib/use-api'
import { diffWords } from '../lib/word-diff'
import { Link } from '../ui/link'
import { Loaded } from '../ui/states'

/** A memory the draft is reviewed against. */
export interface Memory {
  id: string
  title: string
}

/** Old text → new text as one passage: removed words struck through, added ones underlined, each also said in words. */
export function WordDiff({ before, after, class: className = '' }: { before: string; after: string; class?: string }) {
  return (
    <p class={`diff ${className}`} dir="auto">
      {diffWords(before, after).map((run, i) =>
        run.op === 'equal' ? (
          run.text
        ) : run.op === 'delete' ? (
          <del key={i}>
            <span class="visually-hidden">[removed: </span>
            {run.text}
            <span class="visually-hidden">]</span>
          </del>
        ) : (
          <ins key={i}>
            <span class="visually-hidden">[added: </span>
            {run.text}
            <span class="visually-hidden">]</span>
          </ins>
        ),
      )}
    </p>
  )
}

/** What approving the draft would change in memory `id`: its title and text as a word diff. */
export function Supersedes({ draft, id, label = 'Changes to the memory it replaces' }: { draft: Draft; id: string; label?: string }) {
  const memory = useApi(
    (signal) =>
      unwrap(api.GET('/api/documents/{id}', { params: { path: { id } }, signal })).catch((error: unknown) => {
        if (error instanceof ApiError && error.status === 404) return null
        throw error
      }),
    [id],
  )
  return (
    <section class="compare" aria-label={label}>
      <Loaded query={memory} label="Loading the memory it replaces…">
        {(current) =>
          current ? (
            <>
              <p class="compare-label">
                {label}: <Link href={`/app/documents/${current.id}`}>{current.title}</Link>
                {current.status !== 'active' ? ` (${current.status.replace('_', ' ')})` : ''}
              </p>
              <p class="diff-legend hint">
                <del>removed</del> <ins>added</ins>
              </p>
              {current.title !== draft.title && <WordDiff class="diff-title" before={current.title} after={draft.title} />}
              <WordDiff class="diff-body" before={current.body} after={draft.body} />
            </>
          ) : (
            <p class="hint">The memory it would replace no longer exists.</p>
          )
        }
      </Loaded>
    </section>
  )
}

/** What to search for: the draft's title and the start of its text (a search is cut at a few hundred characters anyway). */
const queryOf = (draft: Draft) => `${draft.title} ${markdownToText(draft.excerpt)}`.slice(0, 300)

interface SimilarProps {
  draft: Draft
  exclude?: string
  busy: boolean
  onMerge(memory: Memory): void
  onDuplicate(memory: Memory): void
}

/** Active memories of the draft's workspace that read like it, best first (at most three). */
export function Similar({ draft, exclude, busy, onMerge, onDuplicate }: SimilarProps) {
  const [comparing, setComparing] = useState<string>()
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
            .filter(
              (r) =>
                MEMORY_KINDS.includes(r.document.kind as never) &&
                r.document.status === 'active' &&
                r.document.id !== draft.id &&
                r.document.id !== exclude,
            )
            .slice(0, 3)
          if (!memories.length) return <p class="hint">None found: this looks new.</p>
          return (
            <ul class="similar-list">
              {memories.map((r) => {
                const memory = { id: r.document.id, title: r.document.title }
                const open = comparing === memory.id
                return (
                  <li key={memory.id}>
                    <Link href={`/app/documents/${memory.id}`}>{memory.title}</Link> <span class="kind">{r.document.kind}</span>{' '}
                    <span class="hint">score {formatScore(r.score)}</span>
                    <p class="similar-snippet">{markdownToText(r.snippet)}</p>
                    <div class="row similar-actions">
                      <button
                        type="button"
                        class="quiet"
                        aria-expanded={open}
                        aria-label={`Compare with “${memory.title}”`}
                        onClick={() => setComparing(open ? undefined : memory.id)}
                      >
                        Compare
                      </button>
                      <button type="button" disabled={busy} aria-label={`Merge into “${memory.title}”`} onClick={() => onMerge(memory)}>
                        Merge into
                      </button>
                      <button
                        type="button"
                        class="danger"
                        disabled={busy}
                        aria-label={`Reject as duplicate of “${memory.title}”`}
                        onClick={() => onDuplicate(memory)}
                      >
                        Reject as duplicate
                      </button>
                    </div>
                    {open && <Supersedes draft={draft} id={memory.id} label="What merging would change in" />}
                  </li>
                )
              })}
            </ul>
          )
        }}
      </Loaded>
    </section>
  )
}
