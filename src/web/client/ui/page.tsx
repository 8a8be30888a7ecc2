// A screen's heading: sets the tab title, and takes focus after an in-app navigation so screen readers
// announce the new screen and keyboard users start from its top.
import type { ComponentChildren } from 'preact'
import { useEffect, useRef } from 'preact/hooks'

let first = true

export function PageTitle({ title, children }: { title: string; children?: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => {
    document.title = `${title} · Memory`
    if (first) first = false
    else heading.current?.focus({ preventScroll: true })
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
