// /api/memories: agent-facing batch drafts and the memory list.
import { Elysia } from 'elysia'
import type { Deps } from '../../deps'
import { authPlugin } from '../../http/auth'
import { created } from '../../http/created'
import { errors } from '../../http/schemas'
import { readTimeRange } from '../../lib/time-range'
import { DocumentPage } from '../documents/documents.schemas'
import { BatchDraftBody, DraftList, MemoryListQuery } from './memories.schemas'
import { listMemories, saveDrafts } from './memories.service'

const tags = ['memories']

export function memoriesRoutes(deps: Deps) {
  return new Elysia({ prefix: '/api/memories' })
    .use(authPlugin(deps))
    .post(
      '/batch-draft',
      async ({ user, body, set }) => {
        const drafts = await saveDrafts(deps, user, body)
        // A batch has no one URL: the list of the workspace's pending drafts holds them all.
        return created(set, `/api/memories?status=pending_approval&workspace_id=${body.workspace_id}`, drafts)
      },
      {
        auth: true,
        body: BatchDraftBody,
        response: { 201: DraftList, ...errors(400, 401, 402, 403, 404, 413) },
        detail: { tags, summary: 'Save 1–25 learnings as pending_approval drafts: all stored or none; invisible until approved' },
      },
    )
    .get('', ({ user, query }) => listMemories(deps, user, { ...query, time: readTimeRange(query) }), {
      auth: true,
      query: MemoryListQuery,
      response: { 200: DocumentPage, ...errors(400, 401, 404) },
      detail: {
        tags,
        summary:
          'List memories (fact, preference, decision, routine, lesson), newest first; ?status=pending_approval lists drafts; after/before: when they happened',
      },
    })
}
