// What this server can connect: GET /api/connectors/providers says of each connector type whether its OAuth app is
// configured, and which settings configure it — the same answer creating a connector gives (503 when not configured).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp } from '../harness'

let t: TestApp
beforeAll(async () => {
  // Only Google's app: Google Drive can be connected, Confluence and Notion cannot.
  t = await createTestApp({
    env: { GOOGLE_CLIENT_ID: 'google-id', GOOGLE_CLIENT_SECRET: 'google-secret', CONFLUENCE_CLIENT_ID: 'half-set' },
  })
})
afterAll(() => t.close())

describe('the connector providers', () => {
  test('each type says whether it is configured here and which settings enable it', async () => {
    const u = await t.signUp()
    const res = await t.json('GET', '/api/connectors/providers', { cookie: u.cookie })
    expect(res.status).toBe(200)
    expect(res.body.data).toEqual([
      { type: 'confluence', name: 'Confluence', configured: false, setting: ['CONFLUENCE_CLIENT_ID', 'CONFLUENCE_CLIENT_SECRET'] },
      { type: 'google_drive', name: 'Google Drive', configured: true, setting: ['GOOGLE_CLIENT_ID', 'GOOGLE_CLIENT_SECRET'] },
      { type: 'notion', name: 'Notion', configured: false, setting: ['NOTION_CLIENT_ID', 'NOTION_CLIENT_SECRET'] },
    ])
  })

  test('"configured" is what creating one finds: 503 for a type that is not, 201 for one that is', async () => {
    const u = await t.signUp()
    const { body } = await t.json('GET', '/api/connectors/providers', { key: u.key })
    for (const provider of body.data) {
      const res = await t.json('POST', '/api/connectors', { key: u.key, body: { type: provider.type } })
      expect({ type: provider.type, status: res.status }).toEqual({ type: provider.type, status: provider.configured ? 201 : 503 })
    }
  })

  test('signed out, it is a 401', async () => {
    const res = await t.json('GET', '/api/connectors/providers')
    expect(res.status).toBe(401)
    expect(res.body.error).toBeString()
  })
})
