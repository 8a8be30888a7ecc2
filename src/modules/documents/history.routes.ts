// /api/documents/{id}/history, /versions/{version}, /versions/{version}/restore and /unapprove: what a document was,
// who changed it, putting an earlier version back, and taking an approval back.
import { Elysia } from 'elysia'
import type { Deps } from '../../deps'
import { authPlugin } from '../../http/auth'
import { errors, IdParams } from '../../http/schemas'
import { DRAFT_NOTICE, writerOf } from './approval'
import * as S from './documents.schemas'
import { DocumentHistory, DocumentVersion, VersionParams } from './history.schemas'
import { getHistory, getVersion, restoreVersion, unapproveMemory } from './history.service'

const tags = ['documents']

export function historyRoutes(deps: Deps) {
  return new Elysia({ prefix: '/api/documents' })
    .use(authPlugin(deps))
    .get('/:id/history', ({ user, params }) => getHistory(deps, user, params.id), {
      auth: true,
      params: IdParams,
      response: { 200: DocumentHistory, ...errors(400, 401, 404) },
      detail: {
        tags,
        summary:
          "A document's versions, newest first — who made each (you signed in, or a key by label and prefix) and what it changed — " +
          'and, for a memory, the supersede chain with who approved each. Forgetting a document purges every version',
      },
    })
    .get('/:id/versions/:version', ({ user, params }) => getVersion(deps, user, params.id, params.version), {
      auth: true,
      params: VersionParams,
      response: { 200: DocumentVersion, ...errors(400, 401, 404) },
      detail: { tags, summary: 'One version of a document, with its body (404 for a version it never had)' },
    })
    .post(
      '/:id/versions/:version/restore',
      async ({ user, principal, params, set }) => {
        const { document, drafted } = await restoreVersion(deps, user, params.id, params.version, writerOf(principal))
        if (!drafted) return document
        set.status = 202
        return { ...document, notice: DRAFT_NOTICE }
      },
      {
        auth: true,
        params: VersionParams,
        response: { 200: S.Document, 202: S.DraftedDocument, ...errors(400, 401, 402, 403, 404, 409, 413) },
        detail: {
          tags,
          summary:
            "Put an earlier version's title, body and tags back, as a new version (recorded). With an API key, restoring an approved " +
            'memory proposes a draft that supersedes it, as any edit does (202). 409 for the current version',
        },
      },
    )
    .post('/:id/unapprove', ({ user, principal, params }) => unapproveMemory(deps, user, params.id, writerOf(principal)), {
      auth: true,
      params: IdParams,
      response: { 200: S.Document, ...errors(400, 401, 403, 404, 409) },
      detail: {
        tags,
        summary:
          'Take an approval back: the memory returns to a pending draft, and a memory its approval archived as superseded is active again. ' +
          'A person signed in only (403 with an API key); 409 for a document that is not an approved memory',
      },
    })
}
