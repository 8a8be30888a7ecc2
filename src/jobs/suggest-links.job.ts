// suggest-links: after a document is indexed, its nearest neighbours become pending link suggestions.
import { suggestLinks } from '../retrieval/suggestions'
import type { JobDefinition } from './catalog'

export const suggestLinksJob: JobDefinition<{ document_id: string }> = {
  maxAttempts: 3,
  async run(deps, { document_id }) {
    await suggestLinks(deps, document_id)
  },
}
