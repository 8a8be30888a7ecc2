// Picking a client and copying its configuration (lib/client-configs.ts writes them): on API keys under
// Integrations, and in Home's first-run checklist. Filled with the key just created, or a placeholder to replace.
import { useState } from 'preact/hooks'
import { CLIENTS, clientSnippets, type ClientId, KEY_PLACEHOLDER } from '../lib/client-configs'
import { CopyButton } from '../ui/copy'

/** `id`: prefixes the ids of its headings, so two on a page never share one. */
export function ClientSetup({ apiKey, id }: { apiKey?: string; id: string }) {
  const [client, setClient] = useState<ClientId>('claude-desktop')
  const snippets = clientSnippets(client, location.origin, apiKey ?? KEY_PLACEHOLDER)
  return (
    <div class="client-setup stack">
      <fieldset class="client-choice">
        <legend>Your client</legend>
        {CLIENTS.map((c) => (
          <label key={c.id} class="choice">
            <input type="radio" name={`${id}-client`} value={c.id} checked={client === c.id} onChange={() => setClient(c.id)} />
            {c.name}
          </label>
        ))}
      </fieldset>
      {snippets.map((s) => (
        <section key={s.id} class="snippet-card" aria-labelledby={`${id}-${s.id}-title`}>
          <div class="row snippet-head">
            <h3 id={`${id}-${s.id}-title`}>{s.title}</h3>
            <CopyButton text={s.text} name={`Copy the ${s.title} configuration`} />
          </div>
          {s.note && <p class="hint">{s.note}</p>}
          {/* biome-ignore lint/a11y/useAriaPropsSupportedByRole: a scrolling block reached by keyboard says which snippet it holds. */}
          <pre tabIndex={0} aria-labelledby={`${id}-${s.id}-title`}>
            <code>{s.text}</code>
          </pre>
        </section>
      ))}
    </div>
  )
}
