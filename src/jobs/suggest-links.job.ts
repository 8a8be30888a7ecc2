// suggest-links: after a document is indexed, its nearest neighbours become pending link suggestions.
import { suggestLinks } from '../modules/documents/link-suggestions.service'
import { JOB_ATTEMPTS, type JobDefinition, type PayloadOf } from '../queue/job-kinds'

export const suggestLinksJob: JobDefinition<PayloadOf<'suggest-links'>> = {
  maxAttempts: JOB_ATTEMPTS['suggest-links'],
  async run(deps, { document_id }) {
    await suggestLinks(deps, document_id)
  },
}
