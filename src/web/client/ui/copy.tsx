// A copy-to-clipboard button that says whether it worked (the clipboard can be refused: then select by hand).
import { useState } from 'preact/hooks'
import { announce } from '../lib/announce'

/** `name`: the accessible name when several Copy buttons share a page (it begins with the visible word). */
export function CopyButton({ text, label = 'Copy', name }: { text: string; label?: string; name?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle')
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text)
      setState('copied')
      announce('Copied to the clipboard')
    } catch {
      setState('failed')
      announce('The browser refused the clipboard: select the text and copy it by hand')
    }
  }
  return (
    <button type="button" onClick={copy} aria-label={state === 'idle' ? name : undefined}>
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed: select it by hand' : label}
    </button>
  )
}
