// /api/documents/files and /api/documents/:id/file: a file in (its text read off the request path) and the
// original back out, always as a download.
import { Elysia, t } from 'elysia'
import type { Deps } from '../../deps'
import { authPlugin } from '../../http/auth'
import { errors, IdParams } from '../../http/schemas'
import { toDocumentDto } from './documents.model'
import { FILE_FORMS, UploadBody, UploadedDocument } from './files.schemas'
import { findFile, toFileDto, uploadFile } from './files.service'
import { MAX_FILE_BYTES } from '../../http/route-body-limits'

const tags = ['documents']

/** attachment; filename="…" (ASCII, quotes and backslashes replaced) and filename*=UTF-8''… (RFC 6266, RFC 8187). */
export function attachment(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_')
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`
}

export function filesRoutes(deps: Deps) {
  return new Elysia({ prefix: '/api/documents' })
    .use(authPlugin(deps))
    .post(
      '/files',
      async ({ user, principal, body, set }) => {
        const source = principal.via === 'session' ? 'extension' : 'api'
        const tagList = body.tags?.split(',') ?? []
        const { document, file, deduplicated } = await uploadFile(deps, user, { ...body, tags: tagList, source })
        set.status = deduplicated ? 200 : 202
        set.headers.location = `/api/documents/${document.id}`
        return { ...toDocumentDto(document), file: toFileDto(file), deduplicated }
      },
      {
        auth: true,
        body: UploadBody,
        type: 'multipart/form-data',
        response: { 202: UploadedDocument, 200: UploadedDocument, ...errors(400, 401, 402, 403, 404, 413, 415) },
        detail: {
          tags,
          summary: `Upload a file (${FILE_FORMS}): 202 with the document processing; its text is read in the background`,
          description:
            "Multipart field `file` (at most the plan's file size; the service takes " +
            `${MAX_FILE_BYTES / 1024 ** 2} MiB at most). The file is kept as sent (GET /api/documents/{id}/file; it counts towards storage) and ` +
            "read by a background job: the document's `index_status` is `processing` until then, and `file.status` becomes `done` " +
            '(the document is searchable, each passage knowing its page, slide or sheet) or `failed` with `file.error` saying why ' +
            '("encrypted PDF", "no text layer: scanned pages are not read", "over 100 pages"). The same file again is the same document ' +
            '(200, deduplicated); a file of the same name in the workspace with other bytes is a new version: its text replaces the old ' +
            'once read. A file whose bytes are not what its name says, or of a kind not read, is a 415.',
        },
      },
    )
    .get(
      '/:id/file',
      async ({ user, params }) => {
        const file = await findFile(deps.db, user.id, params.id)
        return new Response(new Blob([file.bytes as Uint8Array<ArrayBuffer>]), {
          headers: {
            'content-type': file.content_type,
            'content-disposition': attachment(file.name),
            'x-content-type-options': 'nosniff',
            // Opened anyway (a link, a new tab), it runs nothing: an HTML original is data, never a page of this site.
            'content-security-policy': "sandbox; default-src 'none'",
            'cache-control': 'private, no-cache',
          },
        })
      },
      {
        auth: true,
        params: IdParams,
        response: {
          200: t.Unknown({ description: 'The file as it was uploaded, as a download (Content-Disposition: attachment)' }),
          ...errors(400, 401, 404),
        },
        detail: { tags, summary: 'Download the file a document was uploaded as (404 when the document is not a file)' },
      },
    )
}
