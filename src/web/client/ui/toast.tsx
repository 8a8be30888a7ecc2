// The undo toast: one at a time, a polite status with an Undo button, for about eight seconds (paused while the
// pointer or the focus is on it). A new toast ends the one before (its action then stands); leaving the page
// ends it too, so a delayed delete is sent (by `onLeave`, with fetch's keepalive) rather than lost.
import { useEffect, useRef, useState } from 'preact/hooks'
import './toast.css'

export interface ToastInput {
  message: string
  /** Takes the action back; the toast closes at once. */
  onUndo?: () => unknown
  /** When the toast ends without Undo: its time ran out, another toast took its place. */
  onExpire?: () => unknown
  /** When the page is left with the toast showing (instead of onExpire): only what fetch({ keepalive }) can send. */
  onLeave?: () => unknown
}

interface Toast extends ToastInput {
  id: number
}

export const TOAST_MS = 8000

let current: Toast | undefined
let timer: ReturnType<typeof setTimeout> | undefined
let next = 1
const listeners = new Set<(toast: Toast | undefined) => void>()
const notify = () => listeners.forEach((listener) => listener(current))

/** Shows `input` in place of the toast showing, whose action then stands. */
export function showToast(input: ToastInput): void {
  end('expire')
  current = { ...input, id: next++ }
  start()
  notify()
}

function start() {
  clearTimeout(timer)
  timer = setTimeout(() => end('expire'), TOAST_MS)
}

function end(how: 'expire' | 'undo' | 'leave') {
  const toast = current
  if (!toast) return
  clearTimeout(timer)
  current = undefined
  notify()
  if (how === 'undo') toast.onUndo?.()
  else if (how === 'leave') (toast.onLeave ?? toast.onExpire)?.()
  else toast.onExpire?.()
}

addEventListener('pagehide', () => end('leave'))

/** The toast of the shell (one for the whole dashboard, so it outlives the screen that showed it). */
export function UndoToast() {
  const [toast, setToast] = useState(current)
  const inside = useRef(false)
  useEffect(() => {
    listeners.add(setToast)
    return () => void listeners.delete(setToast)
  }, [])
  // The time stops while the person is on the toast (WCAG 2.2.1), and starts again, whole, when they leave it.
  const hold = () => ((inside.current = true), clearTimeout(timer))
  const release = () => {
    inside.current = false
    if (current) start()
  }
  return (
    <div
      class="undo-toast"
      role="status"
      aria-live="polite"
      onMouseEnter={hold}
      onMouseLeave={release}
      onFocusIn={hold}
      onFocusOut={release}
    >
      {toast && (
        <div class="undo-toast-body" key={toast.id}>
          <span>{toast.message}</span>
          {toast.onUndo && (
            <button type="button" onClick={() => end('undo')}>
              Undo
            </button>
          )}
        </div>
      )}
    </div>
  )
}
