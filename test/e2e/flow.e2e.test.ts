// End to end over real HTTP with a client generated from the OpenAPI document (openapi-fetch typed by
// api.gen.ts): sign-up, an API key, then a workspace and a document through its lifecycle.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { newClient, outcome, signUp, signUpWithKey } from './client'
import { fetchDocument, undeclaredStatuses, type OpenApiDocument } from './document'
import { startServer, type E2EServer } from './server'

let server: E2EServer
let doc: OpenApiDocument

beforeAll(async () => {
  server = await startServer()
  doc = await fetchDocument(server.url)
})
afterAll(async () => {
  await server.stop()
})

describe('user flow through the generated client', () => {
  test('sign-up sets a session cookie; with an allowed Origin the cookie creates an API key that authenticates', async () => {
    const seen: string[] = []
    const api = newClient(server.url, seen)
    const { user, cookie } = await signUp(api)

    const session = await api.GET('/api/auth/session', { headers: { cookie } })
    expect(outcome(session)).toMatchObject({ status: 200, body: { user: { id: user.id }, via: 'session' } })

    // Cookie-authenticated writes need an allowed Origin (CSRF): none, or a foreign one, is 403 { error }.
    const noOrigin = await api.POST('/api/keys', { body: { label: 'e2e' }, headers: { cookie } })
    expect(outcome(noOrigin)).toEqual({ status: 403, body: { error: expect.any(String), code: 'forbidden' } })
    const foreign = await api.POST('/api/keys', { body: { label: 'e2e' }, headers: { cookie, origin: 'http://evil.example' } })
    expect(outcome(foreign)).toEqual({ status: 403, body: { error: expect.any(String), code: 'forbidden' } })

    const created = await api.POST('/api/keys', {
      body: { label: 'e2e', scopes: ['read', 'write', 'keys'] },
      headers: { cookie, origin: server.url },
    })
    expect(outcome(created)).toMatchObject({ status: 201, body: { label: 'e2e' } })
    const key = created.data!.key
    expect(key).toMatch(/^svc_[0-9A-Za-z]{40}$/)
    expect(created.data!.prefix).toBe(key.slice(0, 16))

    const client = newClient(server.url, seen, { authorization: `Bearer ${key}` })
    const viaKey = await client.GET('/api/auth/session')
    expect(outcome(viaKey)).toMatchObject({ status: 200, body: { user: { id: user.id }, via: 'key' } })
    const keys = await client.GET('/api/keys')
    expect(outcome(keys)).toMatchObject({ status: 200 })
    expect(keys.data!.data.map((k) => k.id)).toEqual([created.data!.id])
    expect(undeclaredStatuses(doc, seen)).toEqual([])
  })

  test('with a key: create a workspace, ingest, list, archive, restore and forget a document', async () => {
    const seen: string[] = []
    const { client } = await signUpWithKey(server.url, seen)

    const ws = await client.POST('/api/workspaces', { body: { name: 'E2E notes' } })
    expect(outcome(ws)).toMatchObject({ status: 201, body: { name: 'E2E notes' } })
    const workspaceId = ws.data!.id

    const ingested = await client.POST('/api/documents', {
      body: {
        workspace_id: workspaceId,
        title: 'Deploy checklist',
        body: 'Run the migrations before switching traffic to the new release.',
      },
    })
    expect(outcome(ingested)).toMatchObject({
      status: 201,
      body: { workspace_id: workspaceId, title: 'Deploy checklist', status: 'active' },
    })
    const id = ingested.data!.id

    const listIds = async (status?: 'active' | 'archived') => {
      const list = await client.GET('/api/documents', { params: { query: { workspace_id: workspaceId, ...(status ? { status } : {}) } } })
      expect(outcome(list)).toMatchObject({ status: 200 })
      const { data, next_cursor } = list.data!
      expect(next_cursor === null || typeof next_cursor === 'string').toBe(true)
      return data.map((d) => d.id)
    }
    expect(await listIds()).toEqual([id])

    const archived = await client.POST('/api/documents/{id}/archive', { params: { path: { id } } })
    expect(outcome(archived)).toMatchObject({ status: 200 })
    expect(await listIds()).toEqual([])
    expect(await listIds('archived')).toEqual([id])

    const restored = await client.POST('/api/documents/{id}/restore', { params: { path: { id } } })
    expect(outcome(restored)).toMatchObject({ status: 200 })
    expect(await listIds()).toEqual([id])

    const forgotten = await client.POST('/api/documents/{id}/forget', { params: { path: { id } } })
    expect(forgotten.response.ok).toBe(true)
    const gone = await client.GET('/api/documents/{id}', { params: { path: { id } } })
    expect(outcome(gone)).toEqual({ status: 404, body: { error: expect.any(String), code: 'not_found' } })
    expect(await listIds()).toEqual([])
    expect(await listIds('archived')).toEqual([])
    expect(undeclaredStatuses(doc, seen)).toEqual([])
  })

  test('the default document list holds every kind and source: only status has a default (active)', async () => {
    const seen: string[] = []
    const { client } = await signUpWithKey(server.url, seen)
    const ids: string[] = []
    for (const extra of [{}, { kind: 'note' }, { source: 'extension' }] as const) {
      const res = await client.POST('/api/documents', {
        body: { title: `item ${ids.length}`, body: `Body number ${ids.length} of the list test.`, ...extra },
      })
      expect(outcome(res)).toMatchObject({ status: 201, body: extra })
      ids.push(res.data!.id)
    }
    const list = await client.GET('/api/documents')
    expect(outcome(list)).toMatchObject({ status: 200 })
    expect(list.data!.data.map((d) => d.id).sort()).toEqual([...ids].sort())
    expect(undeclaredStatuses(doc, seen)).toEqual([])
  })
})
