// The account's one document count, as Home and Usage show it: every stored document whatever its status — what the
// plan limits (GET /api/usage documents.used, GET /api/stats documents.stored) — said in those words, so no screen
// shows another total under the same name.
import { plural } from '../lib/format'
import { Meter } from './meter'

export const DOCUMENTS_COUNTED =
  'every stored document: active, drafts waiting for review and archived, memories and conversation messages included'

export function DocumentsMeter({ used, limit }: { used: number; limit: number | null }) {
  return (
    <div class="documents-meter">
      <Meter label="Documents" used={used} limit={limit} show={(n) => plural(n, 'document')} />
      <p class="hint">Counts {DOCUMENTS_COUNTED}.</p>
    </div>
  )
}
