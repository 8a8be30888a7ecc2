// "Propose learnings" on a conversation: a chat model reads its new messages (POST /api/threads/{id}/extract) and
// proposes drafts for the review queue. Shows what came of it — drafts to review, what was set aside and why, more
// waiting — or the service's error (no CHAT_MODEL, a model that failed); otherwise how the last extraction went.
import { useState } from 'preact/hooks'
import { api, unwrap } from '../api/client'
import type { paths } from '../api/schema'
import { formatDate, plural } from '../lib/format'
import type { Thread } from '../lib/threads'
import { useAction } from '../lib/use-api'
import { Link } from '../ui/link'
import { ActionStatus, Loading } from '../ui/states'

type Outcome = paths['/api/threads/{id}/extract']['post']['responses']['200']['content']['application/json']

export function Learnings({ thread, reload }: { thread: Thread; reload(): void }) {
  const proposing = useAction()
  const [outcome, setOutcome] = useState<Outcome>()
  const propose = async () => {
    setOutcome(undefined)
    const got = await proposing.run(() => unwrap(api.POST('/api/threads/{id}/extract', { params: { path: { id: thread.id } } })))
    setOutcome(got)
    // The thread records the extraction, done or failed, and how far it read.
    reload()
  }
  const fresh = outcome || proposing.error || proposing.busy
  return (
    <section class="learnings" aria-label="Learnings">
      <div class="row">
        <button type="button" onClick={propose} disabled={proposing.busy}>
          Propose learnings
        </button>
        {!fresh && <LastExtraction thread={thread} />}
      </div>
      {proposing.busy && <Loading label="A chat model is reading the new messages…" />}
      <ActionStatus action={proposing} />
      {outcome && <OutcomeNote outcome={outcome} />}
    </section>
  )
}

function OutcomeNote({ outcome }: { outcome: Outcome }) {
  const proposed = outcome.proposed.length
  return (
    <div class="outcome" role="status">
      {outcome.read === 0 ? (
        <p>No new messages since learnings were last proposed: nothing to read.</p>
      ) : (
        <p>
          Read {plural(outcome.read, 'new message')}: proposed {plural(proposed, 'draft')}
          {outcome.skipped.length > 0 && `, set aside ${outcome.skipped.length}`}.
          {proposed > 0 && (
            <>
              {' '}
              <Link href="/app/review">Review them</Link>: nothing becomes a memory until you approve it.
            </>
          )}
          {outcome.remaining && ' More new messages wait: propose again to read them.'}
        </p>
      )}
      {outcome.skipped.length > 0 && (
        <details>
          <summary>Why {outcome.skipped.length === 1 ? 'one was' : `${outcome.skipped.length} were`} set aside</summary>
          <ul>
            {outcome.skipped.map((s, i) => (
              <li key={i}>
                {s.title ?? 'A learning'}: {s.detail}
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  )
}

/** How the last extraction (on request, or automatic after new messages) went. */
function LastExtraction({ thread }: { thread: Thread }) {
  const last = thread.extraction
  if (!last) return <span class="hint">A chat model reads the new messages and proposes drafts for the review queue.</span>
  if (last.status === 'failed')
    return (
      <span class="extraction failed">
        The last proposing failed ({formatDate(last.at)}): {last.error ?? 'no reason given'}
      </span>
    )
  return (
    <span class="hint extraction">
      Last proposed {formatDate(last.at)}: {plural(last.proposed ?? 0, 'draft')}
      {last.skipped ? `, ${last.skipped} set aside` : ''}
      {last.proposed ? (
        <>
          {' '}
          — <Link href="/app/review">review them</Link>
        </>
      ) : (
        ''
      )}
    </span>
  )
}
