// The job catalog: the handler of every kind of background job (queue/job-kinds.ts names the kinds, their payloads
// and attempts). Only the worker reads it: it is the one place that imports every job's code.
import { embedDocumentJob } from './embed-document.job'
import { extractFileJob } from './extract-file.job'
import { extractLearningsJob } from './extract-learnings.job'
import type { JobDefinition, JobKind, PayloadOf } from '../queue/job-kinds'
import { reembedDocumentJob, reembedSweepJob } from './reembed.job'
import { suggestLinksJob } from './suggest-links.job'
import { syncConnectorJob } from './sync-connector.job'

export const catalog = {
  'embed-document': embedDocumentJob,
  'reembed-sweep': reembedSweepJob,
  'reembed-document': reembedDocumentJob,
  'suggest-links': suggestLinksJob,
  'sync-connector': syncConnectorJob,
  'extract-learnings': extractLearningsJob,
  'extract-file': extractFileJob,
} satisfies { [K in JobKind]: JobDefinition<PayloadOf<K>> }
