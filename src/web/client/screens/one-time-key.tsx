// A key just created, shown in full this once with a copy button (the service keeps only its hash): on API keys and
// in Home's first-run checklist.
import type { ComponentChildren } from 'preact'
import { CopyButton } from '../ui/copy'

export function OneTimeKey({ apiKey, children }: { apiKey: string; children?: ComponentChildren }) {
  return (
    <>
      <p>
        <strong>Copy it now: it is shown only this once.</strong> The service keeps only a hash of it.
      </p>
      {children}
      <div class="row one-time-key">
        {/* biome-ignore lint/a11y/useAriaPropsSupportedByRole: the one-time key is found by this name (getByLabel in the browser suites). */}
        <code class="secret" aria-label="The new API key">
          {apiKey}
        </code>
        <CopyButton text={apiKey} label="Copy key" />
      </div>
    </>
  )
}
