// One polite live region for "Archived", "Saved" and the like: read by screen readers, shown as a toast.
import { useEffect, useState } from 'preact/hooks'

let message = ''
let timer: ReturnType<typeof setTimeout> | undefined
const listeners = new Set<(text: string) => void>()

export function announce(text: string): void {
  message = text
  listeners.forEach((listener) => listener(text))
  clearTimeout(timer)
  timer = setTimeout(() => announce(''), 5000)
}

export function useAnnouncement(): string {
  const [text, setText] = useState(message)
  useEffect(() => {
    listeners.add(setText)
    return () => void listeners.delete(setText)
  }, [])
  return text
}
