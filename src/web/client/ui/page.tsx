// A screen's heading: sets the tab title, and takes focus after an in-app navigation so screen readers
// announce the new screen and keyboard users start from its top.
import type { ComponentChildren } from 'preact'
import { useLayoutEffect, useRef } from 'preact/hooks'

let first = true
/** The address whose heading last took focus: a title that changes on the same page (loading → the thread's title) is
 * no navigation, and must not take focus from what the screen focused meanwhile (a linked message). */
let focusedAt: string | null = null

export function PageTitle({ title, children }: { title: string; children?: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null)
  // Before the first paint, and so before the effects of what the screen shows below it (a layout effect runs in the
  // tree's order): a screen that focuses something of its own on the same render (a linked message) keeps it.
  useLayoutEffect(() => {
    document.title = `${title} · Memory`
    const at = location.pathname + location.search
    if (first) first = false
    else if (at !== focusedAt) heading.current?.focus({ preventScroll: true })
    focusedAt = at
  }, [title])
  return (
    <div class="page-title">
      <h1 ref={heading} tabIndex={-1}>
        {title}
      </h1>
      {children}
    </div>
  )
}
