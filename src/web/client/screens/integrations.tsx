// Ready-to-copy client configuration under API keys, filled with this service's address and the key just created —
// or a placeholder to replace, since a key is never shown again.
import { KEY_PLACEHOLDER } from '../lib/client-configs'
import { ClientSetup } from './client-setup'

export function Integrations({ apiKey }: { apiKey?: string }) {
  return (
    <section class="integrations card" aria-labelledby="integrations-heading">
      <h2 id="integrations-heading">Integrations</h2>
      <p class="hint">
        {apiKey
          ? 'Filled in with your new key: copy them before leaving this page.'
          : `Create a key above and these fill in with it; until then replace ${KEY_PLACEHOLDER} with a key of yours.`}
      </p>
      <ClientSetup apiKey={apiKey} id="integrations" />
    </section>
  )
}
