// Beside a draft proposed from a conversation: the messages it rests on (who said each, when, what), each linking to
// the conversation at that message, so the person can judge the learning by what was actually said.
import { api, ApiError, unwrap } from '../api/client'
import { isMessage, messageHref, messageLabel } from '../lib/messages'
import { plural } from '../lib/format'
import { useApi } from '../lib/use-api'
import { Link } from '../ui/link'
import { Loaded } from '../ui/states'

/** Shown at most; a learning resting on more says how many more there are. */
const SHOWN = 10
/** Characters of a message quoted; the rest is a click away in the conversation. */
const QUOTE = 600

export function EvidenceMessages({ ids }: { ids: string[] }) {
  const found = useApi(
    (signal) =>
      Promise.all(
        ids.slice(0, SHOWN).map((id) =>
          unwrap(api.GET('/api/documents/{id}', { params: { path: { id } }, signal })).catch((error: unknown) => {
            // Forgotten or deleted since: said, not quoted.
            if (error instanceof ApiError && error.status === 404) return null
            throw error
          }),
        ),
      ),
    [ids.join()],
  )
  return (
    <div class="evidence">
      <p class="compare-label">Evidence: {plural(ids.length, 'message')}</p>
      <Loaded query={found} label="Loading the evidence…">
        {(docs) => (
          <ol class="evidence-messages">
            {docs.map((doc, i) =>
              doc ? (
                <li key={doc.id}>
                  <p class="said">
                    {isMessage(doc) ? (
                      <Link href={messageHref(doc.thread_id, doc.id)}>{messageLabel(doc)}</Link>
                    ) : (
                      <Link href={`/app/documents/${doc.id}`}>{doc.title}</Link>
                    )}
                    {doc.status !== 'active' && <span>({doc.status.replace('_', ' ')})</span>}
                  </p>
                  <p class="message-text">{doc.body.length > QUOTE ? `${doc.body.slice(0, QUOTE)}…` : doc.body}</p>
                </li>
              ) : (
                <li key={ids[i]}>
                  <p class="said">A message no longer there (forgotten or deleted)</p>
                </li>
              ),
            )}
            {ids.length > SHOWN && <li class="hint">and {plural(ids.length - SHOWN, 'more message')}</li>}
          </ol>
        )}
      </Loaded>
    </div>
  )
}
