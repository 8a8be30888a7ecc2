// /api/workspaces: list, create (plan-gated), rename, delete (cascades), and the context pack.
import { Elysia } from 'elysia'
import type { Deps } from '../../deps'
import { authPlugin } from '../../http/auth'
import { created } from '../../http/created'
import { ifMatched, tagged } from '../../http/etag'
import { errors, IdParams, NoContent } from '../../http/schemas'
import { getContextPack } from './context.service'
import * as S from './workspaces.schemas'
import { createWorkspace, deleteWorkspace, getWorkspace, listWorkspaces, updateWorkspace } from './workspaces.service'

const tags = ['workspaces']

export function workspacesRoutes(deps: Deps) {
  return new Elysia({ prefix: '/api/workspaces' })
    .use(authPlugin(deps))
    .get('', ({ user, query }) => listWorkspaces(deps, user, query), {
      auth: true,
      query: S.WorkspaceListQuery,
      response: { 200: S.WorkspacePage, ...errors(400, 401) },
      detail: { tags, summary: 'List workspaces with their active document counts' },
    })
    .post(
      '',
      async ({ user, body, set }) => {
        const workspace = await createWorkspace(deps, user, body)
        return created(set, `/api/workspaces/${workspace.id}`, tagged(set, workspace))
      },
      {
        auth: true,
        body: S.CreateWorkspaceBody,
        response: { 201: S.Workspace, ...errors(400, 401, 402, 403) },
        detail: { tags, summary: 'Create a workspace (402 at the plan cap: 2 free, 20 pro)' },
      },
    )
    .get('/:id', async ({ user, params, set }) => tagged(set, await getWorkspace(deps, user, params.id)), {
      auth: true,
      params: IdParams,
      response: { 200: S.Workspace, ...errors(400, 401, 404) },
      detail: { tags, summary: 'Fetch one workspace with its active document count (ETag; If-None-Match answers 304)' },
    })
    .patch(
      '/:id',
      async ({ user, params, body, set, request }) =>
        tagged(
          set,
          await ifMatched(
            deps,
            user.id,
            request,
            (d) => getWorkspace(d, user, params.id),
            (d) => updateWorkspace(d, user, params.id, body),
          ),
        ),
      {
        auth: true,
        params: IdParams,
        body: S.UpdateWorkspaceBody,
        response: { 200: S.Workspace, ...errors(400, 401, 403, 404, 412) },
        detail: { tags, summary: 'Rename a workspace (or change its description); If-Match: only if unchanged, else 412' },
      },
    )
    .delete(
      '/:id',
      async ({ user, params, set, request }) => {
        await ifMatched(
          deps,
          user.id,
          request,
          (d) => getWorkspace(d, user, params.id),
          (d) => deleteWorkspace(d, user, params.id),
        )
        set.status = 204
      },
      {
        auth: true,
        params: IdParams,
        response: { 204: NoContent, ...errors(400, 401, 403, 404, 409, 412) },
        detail: { tags, summary: 'Delete a workspace and everything in it (409 for the last workspace)' },
      },
    )
    .get('/:id/context', ({ user, params, query }) => getContextPack(deps, user, params.id, query.max_tokens), {
      auth: true,
      params: IdParams,
      query: S.ContextQuery,
      response: { 200: S.ContextPack, ...errors(400, 401, 404) },
      detail: {
        tags,
        summary: 'Context pack: pinned items, routines, topic facts, recent items and stats; ?max_tokens= trims it to a budget',
      },
    })
}
