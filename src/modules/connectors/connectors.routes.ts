// /api/connectors: connectors (create → consent URL, list, read, change, delete, authorize again), the OAuth
// return, connections (list, disconnect), a wiki's spaces, and manual sync runs.
import { Elysia, t } from 'elysia'
import type { Deps } from '../../deps'
import { authPlugin } from '../../http/auth'
import { created } from '../../http/created'
import { tagged } from '../../http/etag'
import { errors, IdParams, NoContent } from '../../http/schemas'
import { readCookie, SESSION_COOKIE, validateSession } from '../auth/sessions.service'
import { completeConnection, disconnectConnection, listConnections } from './connections.service'
import * as S from './connectors.schemas'
import {
  authorizeConnector,
  createConnector,
  deleteConnector,
  getConnector,
  listConnectors,
  listProviders,
  listWikiSpaces,
  triggerSync,
  updateConnector,
} from './connectors.service'

const tags = ['connectors']

export function connectorsRoutes(deps: Deps) {
  return new Elysia({ prefix: '/api/connectors' })
    .use(authPlugin(deps))
    .get('', ({ user }) => listConnectors(deps, user), {
      auth: true,
      response: { 200: S.ConnectorList, ...errors(401) },
      detail: { tags, summary: 'List connectors with their latest sync run' },
    })
    .get('/providers', () => listProviders(deps), {
      auth: true,
      response: { 200: S.ProviderList, ...errors(401) },
      detail: {
        tags,
        summary:
          'The connector types, each saying whether this server is configured for it and which settings configure it (a type not configured answers 503 on create)',
      },
    })
    .post(
      '',
      async ({ user, body, set }) => {
        const result = await createConnector(deps, user, body)
        return created(set, `/api/connectors/${result.connector.id}`, result)
      },
      {
        auth: true,
        body: S.CreateConnectorBody,
        response: { 201: S.Authorization, ...errors(400, 401, 402, 403, 404, 503) },
        detail: {
          tags,
          summary:
            "Create a connector (pending_auth) and get the provider's consent URL; 402 at the plan's connector cap, 503 when the provider is not configured",
        },
      },
    )
    .get(
      '/oauth/callback',
      async ({ query, request, set }) => {
        const token = readCookie(request.headers.get('cookie'), SESSION_COOKIE)
        const session = token ? await validateSession(deps, token) : null
        const done = await completeConnection(deps, query, session?.user.id ?? null)
        if (!done.redirect) return { connector: done.connector, sync_run: done.sync_run }
        set.headers.location = done.redirect
        set.status = 302
      },
      {
        query: S.CallbackQuery,
        response: { 200: S.Connected, 302: S.Redirect, ...errors(400, 403, 404, 502, 503) },
        detail: {
          tags,
          summary:
            'OAuth return: checks the state, exchanges the code, stores the connection (tokens encrypted), activates the connector and queues its first sync',
        },
      },
    )
    .get('/connections', ({ user }) => listConnections(deps, user), {
      auth: true,
      response: { 200: S.ConnectionList, ...errors(401) },
      detail: { tags, summary: "List the user's OAuth connections (never their tokens)" },
    })
    .delete(
      '/connections/:id',
      async ({ user, params, set }) => {
        await disconnectConnection(deps, user, params.id)
        set.status = 204
      },
      {
        auth: true,
        params: IdParams,
        response: { 204: NoContent, ...errors(400, 401, 403, 404) },
        detail: {
          tags,
          summary: 'Disconnect: revokes the grant at the provider, deletes the tokens, and returns its connectors to pending_auth',
        },
      },
    )
    .get('/:id', async ({ user, params, set }) => tagged(set, await getConnector(deps, user, params.id)), {
      auth: true,
      params: IdParams,
      response: { 200: S.ConnectorDetail, ...errors(400, 401, 404) },
      detail: {
        tags,
        summary: 'A connector with its latest runs (poll it to follow a sync; ETag, so If-None-Match answers 304 while nothing moved)',
      },
    })
    .patch('/:id', ({ user, params, body }) => updateConnector(deps, user, params.id, body), {
      auth: true,
      params: IdParams,
      body: S.UpdateConnectorBody,
      response: { 200: S.Connector, ...errors(400, 401, 403, 404) },
      detail: {
        tags,
        summary: 'Change the label, target workspace or sync selection (spaces, folders or pages); the next sync applies it',
      },
    })
    .delete(
      '/:id',
      async ({ user, params, query, set }) => {
        await deleteConnector(deps, user, params.id, query.delete_documents ?? false)
        set.status = 204
      },
      {
        auth: true,
        params: IdParams,
        query: S.DeleteConnectorQuery,
        response: { 204: NoContent, ...errors(400, 401, 403, 404) },
        detail: { tags, summary: 'Remove a connector and its runs (its documents stay unless ?delete_documents=true)' },
      },
    )
    .post('/:id/authorize', ({ user, params, body }) => authorizeConnector(deps, user, params.id, body?.redirect_to), {
      auth: true,
      params: IdParams,
      body: t.Optional(S.AuthorizeBody),
      response: { 200: S.Authorization, ...errors(400, 401, 403, 404, 503) },
      detail: { tags, summary: 'Authorize an existing connector again (after a disconnect or a refused token): a new consent URL' },
    })
    .get('/:id/:wiki/spaces', ({ user, params }) => listWikiSpaces(deps, user, params.id, params.wiki), {
      auth: true,
      params: S.WikiParams,
      response: { 200: S.SpaceList, ...errors(400, 401, 404, 409, 502) },
      detail: { tags, summary: "List a wiki connector's spaces for selection (GET /:id/confluence/spaces)" },
    })
    .post(
      '/:id/sync',
      async ({ user, params, set }) => {
        set.status = 202
        return triggerSync(deps, user, params.id)
      },
      {
        auth: true,
        params: IdParams,
        response: { 202: S.SyncRun, ...errors(400, 401, 403, 404, 409) },
        detail: { tags, summary: 'Queue a sync run (or answer the one already queued or running)' },
      },
    )
}
