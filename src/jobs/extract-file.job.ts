// extract-file: reads an uploaded file's text (src/modules/documents/files.service.ts); a file that cannot be
// read ends `failed` with its reason at once, and a worker that keeps failing leaves the same after its last try.
import { extractionGaveUp, extractUploadedFile } from '../modules/documents/files.service'
import { JOB_ATTEMPTS, type JobDefinition, type PayloadOf } from '../queue/job-kinds'

export const extractFileJob: JobDefinition<PayloadOf<'extract-file'>> = {
  maxAttempts: JOB_ATTEMPTS['extract-file'],
  run: (deps, { document_id, sha256 }, job) => extractUploadedFile(deps, job.user_id!, document_id, sha256),
  onFailed: (deps, { document_id, sha256 }, error) => extractionGaveUp(deps, document_id, sha256, error),
}
