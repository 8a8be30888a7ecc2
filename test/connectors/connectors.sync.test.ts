// Each connector end to end through the real HTTP flow, against a local fake of its provider: create → the
// provider's consent → the OAuth return → the first sync as a background job, then upstream edits, removals
// and additions picked up by the next sync, an unchanged source costing no content fetch, a forgotten
// document never coming back, and a disconnect revoking the grant.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { connections } from '../../db/schema'
import { openAccessToken } from '../../src/connectors/connection-tokens'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { consent, CONNECTOR_CALLBACK, runSyncs } from './connect'
import type { ConnectorFake } from '../fakes/connector-fake'
import type { ProviderCase } from './cases/case'
import { confluenceCase } from './cases/confluence.case'
import { googleDriveCase } from './cases/google-drive.case'
import { notionCase } from './cases/notion.case'

const CASES: ProviderCase<any, any>[] = [confluenceCase, googleDriveCase, notionCase]

async function documentsOf(t: TestApp, user: TestUser, connectorId: string) {
  const res = await t.json('GET', '/api/documents?source=connector&limit=100', { key: user.key })
  expect(res.status).toBe(200)
  const mine = (res.body.data as { id: string; title: string; source_ref: string }[]).filter((d) => d.source_ref === connectorId)
  const full = await Promise.all(mine.map(async (d) => (await t.json('GET', `/api/documents/${d.id}`, { key: user.key })).body))
  return Object.fromEntries(full.map((d) => [d.title, d])) as Record<
    string,
    { id: string; title: string; body: string; source: string; url: string | null; metadata: any }
  >
}

const lastRun = async (t: TestApp, user: TestUser, id: string) =>
  (await t.json('GET', `/api/connectors/${id}`, { key: user.key })).body.last_run

for (const c of CASES) {
  describe(`${c.type} connector`, () => {
    let t: TestApp
    let fake: ConnectorFake

    beforeAll(async () => {
      fake = c.start(CONNECTOR_CALLBACK)
      t = await createTestApp({ env: fake.env })
    })
    afterAll(async () => {
      await t.close()
      await fake.stop()
    })

    test('connects through OAuth, syncs the workspace, follows upstream changes and disconnects', async () => {
      const seeded = c.seed(fake)
      const user = await t.signUp()

      // 1. Create: pending until the provider's consent comes back.
      const created = await t.json('POST', '/api/connectors', {
        key: user.key,
        body: { type: c.type, ...(seeded.config ? { config: seeded.config } : {}) },
      })
      expect(created.status).toBe(201)
      const id = created.body.connector.id as string
      const returned = await consent(t, created.body.authorization_url, user.cookie)
      expect(returned.status).toBe(200)
      const connected = (await returned.json()) as any
      expect(connected.connector).toMatchObject({ id, status: 'active' })
      expect(connected.sync_run).toMatchObject({ status: 'queued', added: 0 })

      // The connection is listed without its tokens, and the tokens are stored sealed.
      const list = await t.json('GET', '/api/connectors/connections', { key: user.key })
      expect(list.body.data).toHaveLength(1)
      expect(list.body.data[0]).toMatchObject({ id: connected.connector.connection_id, connectors: 1 })
      expect(JSON.stringify(list.body)).not.toContain('token')
      const [row] = await t.deps.db.select().from(connections).where(eq(connections.id, connected.connector.connection_id))
      const access = openAccessToken(t.deps, row!)
      expect(JSON.stringify(row)).not.toContain(access)

      // 2. The first sync imports the selection as connector documents, searchable.
      expect(await runSyncs(t)).toBe(1)
      const first = await lastRun(t, user, id)
      expect(first).toMatchObject({
        status: 'succeeded',
        added: seeded.imported.length,
        updated: 0,
        removed: 0,
        skipped: seeded.skipped,
        error: null,
      })
      // The provider saw the token the service sealed.
      expect(fake.requests.some((r) => r.headers.authorization === `Bearer ${access}`)).toBe(true)
      let docs = await documentsOf(t, user, id)
      expect(Object.keys(docs).sort()).toEqual(seeded.imported.map((e) => e.title).sort())
      for (const e of seeded.imported) {
        expect(docs[e.title]!.body).toContain(e.phrase)
        expect(docs[e.title]!.source).toBe('connector')
      }
      const hit = await t.json('GET', `/api/search?q=${encodeURIComponent(seeded.imported[0]!.phrase)}`, { key: user.key })
      expect(hit.body.results[0].document.id).toBe(docs[seeded.imported[0]!.title]!.id)

      // 3. Nothing changed upstream: the next sync changes nothing and fetches no content.
      const contentBefore = fake.requests.filter(c.isContentRequest).length
      expect((await t.json('POST', `/api/connectors/${id}/sync`, { key: user.key })).status).toBe(202)
      await runSyncs(t)
      expect(await lastRun(t, user, id)).toMatchObject({ status: 'succeeded', added: 0, updated: 0, removed: 0 })
      expect(fake.requests.filter(c.isContentRequest).length).toBe(contentBefore)

      // 4. Upstream: one edited, one removed, one added.
      const edited = c.edit(fake, seeded.handles)
      const removed = c.remove(fake, seeded.handles)
      const added = c.add(fake, seeded.handles)
      const run = await t.json('POST', `/api/connectors/${id}/sync`, { key: user.key })
      expect(run.body.status).toBe('queued')
      // Asking again while it is queued answers the same run.
      expect((await t.json('POST', `/api/connectors/${id}/sync`, { key: user.key })).body.id).toBe(run.body.id)
      await runSyncs(t)
      expect(await lastRun(t, user, id)).toMatchObject({ id: run.body.id, status: 'succeeded', added: 1, updated: 1, removed: 1 })
      const editedId = docs[edited.title]!.id
      docs = await documentsOf(t, user, id)
      expect(docs[edited.title]!.id).toBe(editedId)
      expect(docs[edited.title]!.body).toContain(edited.phrase)
      expect(docs[removed]).toBeUndefined()
      expect(docs[added.title]!.body).toContain(added.phrase)

      // 5. A forgotten document stays forgotten.
      expect((await t.json('POST', `/api/documents/${docs[added.title]!.id}/forget`, { key: user.key })).status).toBe(204)
      await t.json('POST', `/api/connectors/${id}/sync`, { key: user.key })
      await runSyncs(t)
      expect(await lastRun(t, user, id)).toMatchObject({ status: 'succeeded', added: 0 })
      expect((await documentsOf(t, user, id))[added.title]).toBeUndefined()

      // 6. Disconnect: revoked at the provider (where it can be), tokens gone, the connector back to pending.
      expect((await t.json('DELETE', `/api/connectors/connections/${connected.connector.connection_id}`, { key: user.key })).status).toBe(
        204,
      )
      if (c.revokes) expect(fake.revokedTokens.length).toBe(1)
      expect(await t.deps.db.select().from(connections).where(eq(connections.user_id, user.id))).toEqual([])
      const after = await t.json('GET', `/api/connectors/${id}`, { key: user.key })
      expect(after.body).toMatchObject({ status: 'pending_auth', connection_id: null })
      expect((await t.json('POST', `/api/connectors/${id}/sync`, { key: user.key })).status).toBe(409)
      // The documents it brought stay the user's (the first sync's, less the removed and the forgotten, plus the added).
      expect(Object.keys(await documentsOf(t, user, id)).sort()).toEqual(
        [...seeded.imported.map((e) => e.title).filter((title) => title !== removed), edited.title]
          .filter((v, i, all) => all.indexOf(v) === i)
          .sort(),
      )
    })
  })
}
