// /api/documents: the document routes (README, API), and POST /bulk (many ingests in one request).
import { Elysia, t } from 'elysia'
import type { Deps } from '../../deps'
import { authPlugin } from '../../http/auth'
import { created } from '../../http/created'
import { ifMatched, tagged } from '../../http/etag'
import { errors, IdParams, NoContent } from '../../http/schemas'
import { readTimeRange } from '../../lib/time-range'
import { toDocumentDto } from './documents.model'
import * as S from './documents.schemas'
import { DRAFT_NOTICE, writerOf } from './approval'
import { bulkDeleteDocuments, deleteDocument, getDocument, listDocuments, patchDocument } from './documents.service'
import { checkIngest, ingestDocument } from './ingest.service'
import { GROUP_BYTES } from './bulk.groups'
import { ingestMany, MAX_BULK_DOCUMENTS } from './bulk.service'
import { readBulkItems } from './bulk.input'
import { approveDraft, archiveDocument, forgetDocument, rateDocument, rejectDraft, restoreDocument } from './lifecycle.service'
import { linkDocuments, listLinks, unlinkDocuments } from './links.service'

const tags = ['documents']
const one = { auth: true, params: IdParams } as const

export function documentsRoutes(deps: Deps) {
  return new Elysia({ prefix: '/api/documents' })
    .use(authPlugin(deps))
    .post(
      '',
      async ({ user, principal, body, set }) => {
        const source = body.source ?? (principal.via === 'session' ? 'extension' : 'api')
        const { document, deduplicated } = await ingestDocument(deps, user, { ...body, source, writer: writerOf(principal) })
        if (deduplicated) set.status = 200
        else created(set, `/api/documents/${document.id}`, null)
        return { ...toDocumentDto(document), deduplicated, ...(document.status === 'pending_approval' ? { notice: DRAFT_NOTICE } : {}) }
      },
      {
        auth: true,
        body: S.IngestBody,
        response: { 201: S.IngestedDocument, 200: S.IngestedDocument, ...errors(400, 401, 402, 403, 404, 413) },
        detail: {
          tags,
          summary:
            'Ingest a document: plan limits are checked first; the same URL, or the same text under the same title, updates the existing document (200, deduplicated)',
          description:
            'A memory kind (fact, preference, decision, routine, lesson) sent with an API key becomes a pending_approval draft, exactly as ' +
            'POST /api/memories/batch-draft makes one (`status` and `notice` say so); when it would update an existing document, the ' +
            "draft's metadata.supersedes names it and approval replaces it. Only a person signed in with a session writes active memories directly.",
        },
      },
    )
    .post(
      '/bulk',
      async ({ user, principal, body }) => {
        const results = (await ingestMany(deps, user, await readBulkItems(body.documents, principal))).map((r) =>
          'error' in r
            ? r
            : {
                status: r.status,
                document: {
                  ...toDocumentDto(r.document),
                  deduplicated: r.deduplicated,
                  ...(r.document.status === 'pending_approval' ? { notice: DRAFT_NOTICE } : {}),
                },
              },
        )
        const count = (status: number) => results.filter((r) => r.status === status).length
        return { results, created: count(201), deduplicated: count(200), failed: results.length - count(201) - count(200) }
      },
      {
        auth: true,
        body: S.BulkIngestBody,
        response: { 200: S.BulkIngestResult, ...errors(400, 401, 402, 403, 413) },
        detail: {
          tags,
          summary: `Ingest up to ${MAX_BULK_DOCUMENTS} documents in one request: 200 with one result per item, in order`,
          description:
            'Each item is the body of POST /api/documents and follows its rules, in order (an item may update a document written by an ' +
            'earlier one: 200, deduplicated). An item that is invalid (400), names a workspace that is not yours (404) or is too large ' +
            '(413) gets its own `{ status, error }` and the others are written. A batch that would pass a plan cap (documents, storage) ' +
            'is refused whole with 402 before anything is written. On PostgreSQL the batch is one transaction; on the embedded database ' +
            `it is written in groups of up to ${GROUP_BYTES / 1024} KiB of text, each a transaction, with other requests served between them: each item ` +
            'is written whole, and a batch cut short (the process stopped) keeps the groups already written — sending it again ' +
            'deduplicates them. The body may be up to 32 MiB (413 past it). One request counts once against API usage; every document ' +
            'created counts as an ingest.',
        },
      },
    )
    .get('/check', ({ user, query }) => checkIngest(deps, user, query), {
      auth: true,
      query: S.CheckQuery,
      response: { 200: S.CheckResult, ...errors(400, 401, 404) },
      detail: {
        tags,
        summary:
          'Dry run: would an ingest of this size (and URL) be allowed? Same verdict and reason as POST (1 MiB body, 16 KiB metadata, plan caps), nothing stored',
      },
    })
    .get('', ({ user, query }) => listDocuments(deps, user, { ...query, time: readTimeRange(query) }), {
      auth: true,
      query: S.ListQuery,
      response: { 200: S.DocumentPage, ...errors(400, 401, 404) },
      detail: {
        tags,
        summary:
          "List documents, newest first; filter by workspace, tag, source, kind, status (default active), when they happened; a thread's messages in order",
      },
    })
    .delete('/bulk', ({ user, body }) => bulkDeleteDocuments(deps, user, body.ids), {
      auth: true,
      body: S.BulkDeleteBody,
      response: { 200: S.BulkDeleteResult, ...errors(400, 401, 403) },
      detail: { tags, summary: 'Delete up to 100 documents; reports which ids were deleted and which were not found' },
    })
    .get('/:id', async ({ user, params, set }) => tagged(set, await getDocument(deps, user, params.id)), {
      ...one,
      response: { 200: S.Document, ...errors(400, 401, 404) },
      detail: { tags, summary: 'Fetch one document with its body and metadata (ETag; If-None-Match answers 304)' },
    })
    .patch(
      '/:id',
      async ({ user, principal, params, body, set, request }) => {
        const { document, drafted } = await ifMatched(
          deps,
          user.id,
          request,
          (d) => getDocument(d, user, params.id),
          (d) => patchDocument(d, user, params.id, body, writerOf(principal)),
        )
        if (!drafted) return tagged(set, document)
        set.status = 202
        return { ...document, notice: DRAFT_NOTICE }
      },
      {
        ...one,
        body: S.PatchBody,
        response: { 200: S.Document, 202: S.DraftedDocument, ...errors(400, 401, 402, 403, 404, 412, 413) },
        detail: {
          tags,
          summary:
            "Update title, excerpt, body, tags or pinned; the document is re-indexed. With an API key, a change to an approved memory's content is a new draft that supersedes it (202)",
        },
      },
    )
    .delete(
      '/:id',
      async ({ user, params, set, request }) => {
        await ifMatched(
          deps,
          user.id,
          request,
          (d) => getDocument(d, user, params.id),
          (d) => deleteDocument(d, user, params.id),
        )
        set.status = 204
      },
      {
        ...one,
        response: { 204: NoContent, ...errors(400, 401, 403, 404, 412) },
        detail: { tags, summary: 'Delete one document (If-Match: only if unchanged, else 412)' },
      },
    )
    .post('/:id/archive', ({ user, params }) => archiveDocument(deps, user, params.id), {
      ...one,
      response: { 200: S.Document, ...errors(400, 401, 403, 404) },
      detail: { tags, summary: 'Archive: hidden from retrieval and lists, recoverable' },
    })
    .post('/:id/restore', ({ user, principal, params }) => restoreDocument(deps, user, params.id, writerOf(principal)), {
      ...one,
      response: { 200: S.Document, ...errors(400, 401, 403, 404, 409) },
      detail: {
        tags,
        summary:
          'Restore an archived document: to active, but a rejected draft (and any memory restored with an API key) to pending_approval',
      },
    })
    .post(
      '/:id/forget',
      async ({ user, params, set }) => {
        await forgetDocument(deps, user, params.id)
        set.status = 204
      },
      {
        ...one,
        response: { 204: NoContent, ...errors(400, 401, 403, 404) },
        detail: {
          tags,
          summary: 'Forget: purge the document, its chunks, links and quoted excerpts for good, leaving a content-free tombstone',
        },
      },
    )
    .post('/:id/rate', ({ user, params, body }) => rateDocument(deps, user, params.id, body.rating), {
      ...one,
      body: S.RateBody,
      response: { 200: S.Document, ...errors(400, 401, 403, 404) },
      detail: { tags, summary: 'Rate a document or memory: 1 up, -1 down, 0 cleared (a mild ranking signal)' },
    })
    .post('/:id/approve', ({ user, principal, params, body }) => approveDraft(deps, user, params.id, writerOf(principal), body ?? {}), {
      ...one,
      body: t.Optional(S.ApproveBody),
      response: { 200: S.Document, ...errors(400, 401, 403, 404, 409) },
      detail: {
        tags,
        summary: 'Approve a pending memory draft: it becomes an active, retrievable memory. A person signed in only (403 with an API key)',
        description:
          'No body approves the draft as it is (a draft whose metadata.supersedes names a memory replaces it). ' +
          '`{ "supersedes": <memory id> }` merges the draft into that memory: approved as its update, recorded in the ' +
          "draft's metadata.supersedes, and the memory is archived. The memory must be the user's own (404 otherwise) " +
          'and an active memory of the same workspace (409 otherwise).',
      },
    })
    .post('/:id/reject', ({ user, params, body }) => rejectDraft(deps, user, params.id, body ?? {}), {
      ...one,
      body: t.Optional(S.RejectBody),
      response: { 200: S.Document, ...errors(400, 401, 403, 404, 409) },
      detail: {
        tags,
        summary: 'Reject a pending draft: it becomes archived',
        description:
          '`{ "duplicate_of": <memory id> }` rejects it as a duplicate of that memory, recorded in metadata.duplicate_of. The memory ' +
          "must be the user's own (404 otherwise) and an active memory of the same workspace (409 otherwise).",
      },
    })
    .get('/:id/links', ({ user, params }) => listLinks(deps, user, params.id), {
      ...one,
      response: { 200: S.LinkList, ...errors(400, 401, 404) },
      detail: { tags, summary: 'Links of a document, pending suggestions and completed links, with scores and statuses' },
    })
    .post(
      '/:id/link',
      async ({ user, params, body, set }) => {
        const { link, created: isNew } = await linkDocuments(deps, user, params.id, body.target_id)
        if (isNew) return created(set, `/api/documents/${params.id}/links/${body.target_id}`, link)
        return link
      },
      {
        ...one,
        body: S.LinkBody,
        response: { 201: S.Link, 200: S.Link, ...errors(400, 401, 403, 404) },
        detail: { tags, summary: 'Link two documents (201), or accept an existing suggestion (200)' },
      },
    )
    .delete(
      '/:id/links/:targetId',
      async ({ user, params, set }) => {
        await unlinkDocuments(deps, user, params.id, params.targetId)
        set.status = 204
      },
      {
        auth: true,
        params: S.LinkParams,
        response: { 204: NoContent, ...errors(400, 401, 403, 404) },
        detail: { tags, summary: 'Unlink two documents; a removed suggestion is not suggested again' },
      },
    )
}
