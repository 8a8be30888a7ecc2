// One file to POST /api/documents/files with upload progress: XMLHttpRequest, since fetch reports none. The answer
// is typed by the API's schema; a refusal (413, 415, 402, 400…) is an ApiError with the API's own `{ error }`.
import { ApiError } from '../api/client'
import type { paths } from '../api/schema'

export type UploadedDocument = paths['/api/documents/files']['post']['responses']['202']['content']['application/json']

/** What the file picker offers: every kind the service reads (it decides by the bytes, not by this list). */
export const FILE_ACCEPT = [
  '.pdf',
  '.docx',
  '.pptx',
  '.xlsx',
  '.csv',
  '.html',
  '.htm',
  '.md',
  '.markdown',
  '.txt',
  '.epub',
  '.odt',
  '.odp',
  '.ods',
].join(',')

export interface UploadFields {
  workspace_id?: string
  title?: string
  /** Comma-separated, as the API takes them. */
  tags?: string
}

/** Sends `file`; `progress` gets the share sent (0–1) as it goes. Aborting `signal` aborts the request. */
export function uploadFile(
  file: File,
  fields: UploadFields,
  progress: (sent: number) => void,
  signal?: AbortSignal,
): Promise<UploadedDocument> {
  const form = new FormData()
  form.set('file', file, file.name)
  for (const [key, value] of Object.entries(fields)) if (value) form.set(key, value)
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest()
    xhr.open('POST', `${location.origin}/api/documents/files`)
    xhr.withCredentials = true
    xhr.responseType = 'text'
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) progress(event.loaded / event.total)
    }
    xhr.onload = () => {
      const body = parse(xhr.responseText)
      if (xhr.status >= 200 && xhr.status < 300 && body && typeof body === 'object') return resolve(body as UploadedDocument)
      reject(failure(xhr, body))
    }
    xhr.onerror = () => reject(new ApiError(0, 'the service could not be reached: check your connection and try again'))
    xhr.onabort = () => reject(new DOMException('aborted', 'AbortError'))
    signal?.addEventListener('abort', () => xhr.abort())
    xhr.send(form)
  })
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function failure(xhr: XMLHttpRequest, body: unknown): ApiError {
  const said = body && typeof body === 'object' ? (body as { error?: unknown }).error : undefined
  const message = typeof said === 'string' ? said : `the service answered ${xhr.status} ${xhr.statusText}`.trim()
  const seconds = Number(xhr.getResponseHeader('retry-after'))
  return new ApiError(xhr.status, message, xhr.status === 429 ? (Number.isFinite(seconds) && seconds > 0 ? Math.ceil(seconds) : 5) : null)
}
