// A conversation's messages, one after another with who said each and when: opened at the message a link points at
// (scrolled to and highlighted), earlier and later pages loaded as the reader scrolls to either end (or by the
// buttons there, for the keyboard). Message text is shown as text, never as HTML.
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks'
import { api, unwrap } from '../api/client'
import { announce } from '../lib/announce'
import { formatDate } from '../lib/format'
import { type FirstWindow, loadEarlier, loadLater, type ThreadMessage } from '../lib/threads'
import { useAction } from '../lib/use-api'
import { Link } from '../ui/link'
import { ActionStatus, Empty, Loading } from '../ui/states'

const ROLES_LEFT = new Set(['assistant', 'system', 'tool'])
const elementId = (id: string) => `message-${id}`

export function MessageWindow({ threadId, start }: { threadId: string; start: FirstWindow }) {
  const [messages, setMessages] = useState(start.messages)
  const [earlier, setEarlier] = useState(start.from > 0)
  const [later, setLater] = useState(start.next)
  const paging = useAction()
  const archiving = useAction()
  const [loading, setLoading] = useState<'earlier' | 'later'>()
  /** The message that must not move on screen while earlier ones are put above it, and where it was. */
  const anchor = useRef<{ id: string; top: number } | undefined>(undefined)
  const top = useRef<HTMLDivElement>(null)
  const bottom = useRef<HTMLDivElement>(null)
  const voices = useRef(new Map<string, number>())

  useLayoutEffect(() => {
    const held = anchor.current
    anchor.current = undefined
    const element = held && document.getElementById(elementId(held.id))
    if (held && element) scrollBy(0, element.getBoundingClientRect().top - held.top)
  }, [messages])

  // Placed before the first paint (a layout effect): a deferred effect ran up to a frame later — a frame shown at the
  // top of the thread, and a moment in which the rendered page was not yet where the link points.
  useLayoutEffect(() => {
    if (!start.target) return
    const element = document.getElementById(elementId(start.target.id))
    element?.scrollIntoView({ block: 'center' })
    element?.focus({ preventScroll: true })
  }, [])

  /** `auto`: asked by scrolling, which stops after a failure (the button, or Try again, asks again). */
  const more = async (direction: 'earlier' | 'later', auto = false) => {
    if ((auto && paging.error) || loading || (direction === 'earlier' ? !earlier : later === null)) return
    setLoading(direction)
    try {
      if (direction === 'earlier') {
        const first = messages[0]
        const got = await paging.run(() => loadEarlier(threadId, first?.position ?? start.from))
        if (!got) return
        const element = first && document.getElementById(elementId(first.id))
        if (element) anchor.current = { id: first.id, top: element.getBoundingClientRect().top }
        setMessages((m) => [...got.messages, ...m])
        setEarlier(got.more)
      } else if (later !== null) {
        const got = await paging.run(() => loadLater(threadId, later))
        if (!got) return
        setMessages((m) => [...m, ...got.data])
        setLater(got.next_position)
      }
    } finally {
      setLoading(undefined)
    }
  }
  // The observer calls the latest `more`, which sees the latest window.
  const moreRef = useRef(more)
  moreRef.current = more
  useEffect(() => {
    if (typeof IntersectionObserver === 'undefined') return
    const observer = new IntersectionObserver(
      (entries) => {
        for (const entry of entries)
          if (entry.isIntersecting) void moreRef.current(entry.target === top.current ? 'earlier' : 'later', true)
      },
      { rootMargin: '400px 0px' },
    )
    if (top.current) observer.observe(top.current)
    if (bottom.current) observer.observe(bottom.current)
    return () => observer.disconnect()
    // Observed again after each page: an edge still in view (a short page) asks for the next one.
  }, [messages.length, earlier, later, loading])

  const archive = async (message: ThreadMessage) => {
    const ok = await archiving.run(() => unwrap(api.POST('/api/documents/{id}/archive', { params: { path: { id: message.id } } })))
    if (!ok) return
    setMessages((m) => m.filter((x) => x.id !== message.id))
    announce('Message archived: hidden here and from search; restore it from Documents (status archived)')
  }

  const voiceOf = (speaker: string) => {
    if (!voices.current.has(speaker)) voices.current.set(speaker, voices.current.size)
    return voices.current.get(speaker)!
  }
  const sideOf = (speaker: string) => (speaker === 'user' ? 'b' : ROLES_LEFT.has(speaker) ? 'a' : voiceOf(speaker) % 2 ? 'b' : 'a')

  return (
    <section class="thread-messages" aria-label="Messages">
      {start.missing && (
        <p class="notice" role="note">
          {start.archived ? (
            <>
              The message this link points at is archived, so the conversation no longer shows it.{' '}
              <Link href={`/app/documents/${start.archived}`}>Open it to restore it</Link>
            </>
          ) : (
            'The message this link points at is not in this conversation any more: it was forgotten or deleted.'
          )}
        </p>
      )}
      <div ref={top} class="thread-edge">
        {earlier &&
          (loading === 'earlier' ? (
            <Loading label="Loading earlier messages…" />
          ) : (
            <button type="button" onClick={() => more('earlier')}>
              Load earlier messages
            </button>
          ))}
      </div>
      <ActionStatus action={paging} />
      <ActionStatus action={archiving} />
      {messages.length === 0 && !earlier && later === null ? (
        <Empty>
          <p>No messages in this conversation{start.missing ? ' any more' : ' yet'}.</p>
        </Empty>
      ) : (
        <ol class="messages">
          {messages.map((m, i) => {
            const speaker = m.speaker || 'someone'
            const isTarget = m.id === start.target?.id
            const continued = i > 0 && messages[i - 1]!.speaker === m.speaker
            return (
              <li
                key={m.id}
                id={elementId(m.id)}
                class={`message side-${sideOf(speaker)} voice-${voiceOf(speaker) % 4}${continued ? ' continued' : ''}${isTarget ? ' target' : ''}`}
                tabIndex={isTarget ? -1 : undefined}
                aria-current={isTarget ? 'true' : undefined}
              >
                <p class="said" id={`said-${m.id}`}>
                  <span class="speaker">{speaker}</span> <time dateTime={m.occurred_at}>{formatDate(m.occurred_at)}</time>
                  {isTarget && <span class="linked">linked message</span>}
                </p>
                <p class="message-text">{m.body}</p>
                <p class="message-actions">
                  <Link href={`/app/documents/${m.id}?view=document`} aria-describedby={`said-${m.id}`}>
                    Details
                  </Link>
                  <button type="button" disabled={archiving.busy} aria-describedby={`said-${m.id}`} onClick={() => archive(m)}>
                    Archive
                  </button>
                </p>
              </li>
            )
          })}
        </ol>
      )}
      <div ref={bottom} class="thread-edge">
        {later !== null &&
          (loading === 'later' ? (
            <Loading label="Loading later messages…" />
          ) : (
            <button type="button" onClick={() => more('later')}>
              Load later messages
            </button>
          ))}
      </div>
    </section>
  )
}
