// Single-key shortcuts for a screen (the review queue's j/k/a/r/e): never while typing in a field, never with
// Ctrl, Alt or Meta (the browser's own shortcuts), never behind an open dialog.
import { useEffect, useRef } from 'preact/hooks'

/** True when a key press belongs to what the person is typing in, not to the page. */
export function isTyping(target: EventTarget | null): boolean {
  const element = target as HTMLElement | null
  if (!element || typeof element.closest !== 'function') return false
  return element.isContentEditable || !!element.closest('input, textarea, select, [contenteditable=""], [contenteditable="true"]')
}

export function useShortcuts(keys: Record<string, () => void>, enabled = true): void {
  const current = useRef(keys)
  current.current = keys
  useEffect(() => {
    if (!enabled) return
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.ctrlKey || event.altKey || event.metaKey || event.isComposing) return
      if (isTyping(event.target) || document.querySelector('dialog[open]')) return
      const run = current.current[event.key]
      if (!run) return
      event.preventDefault()
      run()
    }
    document.addEventListener('keydown', onKey)
    return () => document.removeEventListener('keydown', onKey)
  }, [enabled])
}
