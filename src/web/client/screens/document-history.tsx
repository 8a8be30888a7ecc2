// A document's history, on its page: its versions newest first (who made each, when, what it changed); a version
// chosen shows as a word diff against the one before it, and an earlier one can be restored (as a new version). For a
// memory, the supersede chain (what it replaced, what replaced it, who approved each) and, while it may be, taking
// its approval back (the memory returns to the review queue, the one it replaced is active again).
import { useState } from 'preact/hooks'
import { api, unwrap } from '../api/client'
import type { components } from '../api/schema'
import { describeActor } from '../lib/activity-words'
import { announce } from '../lib/announce'
import { refreshDraftCount } from '../lib/draft-count'
import { formatAgo, formatDate } from '../lib/format'
import { useAction, useApi } from '../lib/use-api'
import { Confirm } from '../ui/confirm'
import { Link } from '../ui/link'
import { ActionStatus, Loaded } from '../ui/states'
import type { Doc } from './document-doc'
import { WordDiff } from './review-related'
import './document-history.css'

type History = components['schemas']['DocumentHistory']
type Version = History['versions'][number]
type ChainLink = components['schemas']['SupersedeLink']

const who = (actor: Version['actor']) => (actor ? describeActor(actor) : 'someone')

/** What a version changed, in words ("title, body"); the first one created the document. */
export const changedWords = (version: Pick<Version, 'changed' | 'version'>) =>
  version.changed.length ? version.changed.join(', ') : version.version === 1 ? 'created' : 'nothing recorded'

export function DocumentHistory({ doc, reload }: { doc: Doc; reload(): void }) {
  const path = { params: { path: { id: doc.id } } }
  // Read again whenever the document changes (an edit, a restore, an approval taken back).
  const history = useApi(
    (signal) => unwrap(api.GET('/api/documents/{id}/history', { ...path, signal })),
    [doc.id, doc.updated_at, doc.status, doc.title, doc.body, doc.tags.join('\n')],
  )
  const [chosen, setChosen] = useState<number>()
  return (
    <section class="history card" aria-labelledby="history-heading">
      <h2 id="history-heading">History</h2>
      <Loaded query={history} label="Loading the history…">
        {(h) => (
          <>
            {h.chain.length > 0 && <Chain chain={h.chain} here={doc.id} />}
            {h.may_unapprove && <Unapprove id={doc.id} title={doc.title} reload={reload} />}
            <ol class="versions">
              {h.versions.map((v) => (
                <li key={v.version} class={v.version === chosen ? 'chosen' : ''}>
                  <button
                    type="button"
                    class="quiet version"
                    aria-pressed={v.version === chosen}
                    onClick={() => setChosen(v.version === chosen ? undefined : v.version)}
                  >
                    Version {v.version}
                    {v.current && ' (current)'}
                  </button>
                  <span>{who(v.actor)}</span>
                  <time dateTime={v.at} title={formatDate(v.at)}>
                    {formatAgo(v.at)}
                  </time>
                  <span class="hint">{changedWords(v)}</span>
                </li>
              ))}
            </ol>
            {chosen !== undefined && (
              <VersionDiff
                key={chosen}
                doc={doc}
                version={h.versions.find((v) => v.version === chosen)!}
                before={h.versions.find((v) => v.version < chosen)?.version}
                reload={() => (reload(), history.reload())}
              />
            )}
          </>
        )}
      </Loaded>
    </section>
  )
}

/** The chosen version against the one before it, and "Restore this version" when it is not the current one. */
function VersionDiff({ doc, version, before, reload }: { doc: Doc; version: Version; before?: number; reload(): void }) {
  const get = (n: number, signal: AbortSignal) =>
    unwrap(api.GET('/api/documents/{id}/versions/{version}', { params: { path: { id: doc.id, version: n } }, signal }))
  const both = useApi(
    async (signal) => ({ now: await get(version.version, signal), prior: before === undefined ? undefined : await get(before, signal) }),
    [version.version, before],
  )
  const [confirming, setConfirming] = useState(false)
  const action = useAction()
  const restore = async () => {
    const restored = await action.run(() =>
      unwrap(api.POST('/api/documents/{id}/versions/{version}/restore', { params: { path: { id: doc.id, version: version.version } } })),
    )
    setConfirming(false)
    if (!restored) return
    announce(
      ('notice' in restored && typeof restored.notice === 'string' && restored.notice) ||
        `Version ${version.version} restored, as a new version`,
    )
    reload()
  }
  return (
    <section class="version-diff" aria-label={`Version ${version.version} against the one before it`}>
      <Loaded query={both} label="Loading the versions…">
        {({ now, prior }) => (
          <>
            <h3>
              Version {version.version}
              {prior ? ` against version ${prior.version}` : ', as it was created'}
            </h3>
            <p class="diff-legend hint">
              <del>removed</del> <ins>added</ins>
            </p>
            {prior && now.title !== prior.title && <WordDiff class="diff-title" before={prior.title} after={now.title} />}
            <WordDiff before={prior?.body ?? ''} after={now.body} />
            {!version.current && (
              <button type="button" onClick={() => setConfirming(true)} disabled={action.busy}>
                Restore this version
              </button>
            )}
            <ActionStatus action={action} />
          </>
        )}
      </Loaded>
      {confirming && (
        <Confirm
          title={`Restore version ${version.version}?`}
          confirm="Restore this version"
          busy={action.busy}
          onConfirm={restore}
          onCancel={() => setConfirming(false)}
        >
          <p>
            Its title, body and tags become the document's again, as a new version: the current one stays in the history and can be restored
            in turn.
          </p>
        </Confirm>
      )}
    </section>
  )
}

/** The memories this one replaced and those that replaced it, oldest first, with who approved each. */
function Chain({ chain, here }: { chain: ChainLink[]; here: string }) {
  const title = (id: string | null) => chain.find((c) => c.id === id)?.title
  return (
    <div class="chain">
      <h3>Supersede chain</h3>
      <ol>
        {chain.map((c) => (
          <li key={c.id}>
            {c.id === here ? <strong>{c.title} (this memory)</strong> : <Link href={`/app/documents/${c.id}`}>{c.title}</Link>}{' '}
            <span class="hint">{c.status.replace('_', ' ')}</span>
            {c.supersedes && <span> — replaced “{title(c.supersedes) ?? 'an earlier memory'}”</span>}
            <span class="hint">
              {' — '}
              {/* A draft (never approved, or its approval taken back) waits in the review queue. */}
              {c.status === 'pending_approval' ? (
                'waiting for approval'
              ) : c.approved ? (
                <>
                  approved by {describeActor(c.approved.actor)}{' '}
                  <time dateTime={c.approved.at} title={formatDate(c.approved.at)}>
                    {formatAgo(c.approved.at)}
                  </time>
                </>
              ) : (
                'not approved'
              )}
            </span>
          </li>
        ))}
      </ol>
    </div>
  )
}

function Unapprove({ id, title, reload }: { id: string; title: string; reload(): void }) {
  const [confirming, setConfirming] = useState(false)
  const action = useAction()
  const unapprove = async () => {
    const ok = await action.run(() => unwrap(api.POST('/api/documents/{id}/unapprove', { params: { path: { id } } })))
    setConfirming(false)
    if (!ok) return
    announce(`Approval taken back: “${title}” is a draft again, in the review queue`)
    refreshDraftCount()
    reload()
  }
  return (
    <div class="unapprove">
      <button type="button" onClick={() => setConfirming(true)} disabled={action.busy}>
        Take approval back
      </button>
      <ActionStatus action={action} />
      {confirming && (
        <Confirm
          title="Take the approval back?"
          confirm="Take approval back"
          busy={action.busy}
          onConfirm={unapprove}
          onCancel={() => setConfirming(false)}
        >
          <p>
            “{title}” goes back to the review queue as a draft, and is no longer used in answers; a memory it replaced becomes active again.
          </p>
        </Confirm>
      )}
    </div>
  )
}
