// Connectors keep in step without anyone asking: once CONNECTOR_SYNC_INTERVAL_MINUTES have passed since a
// connector's last run, the periodic tick queues a new one — not sooner, not for a connector still waiting for
// its consent, and not twice; a failing provider is retried once an interval, not on every tick.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { queueDueSyncs } from '../../src/modules/connectors/sync.schedule'
import { block, startNotionFake, type NotionFake } from '../fakes/notion'
import { createTestApp, type TestApp } from '../harness'
import { connectConnector, CONNECTOR_CALLBACK, runSyncs } from './connect'

let t: TestApp
let notion: NotionFake
const MINUTE = 60_000

beforeAll(async () => {
  notion = startNotionFake({ callbackUrl: CONNECTOR_CALLBACK })
  t = await createTestApp({ env: { ...notion.env, CONNECTOR_SYNC_INTERVAL_MINUTES: '30', DEFAULT_PLAN: 'pro' } })
})
afterAll(async () => {
  await t.close()
  await notion.stop()
})

const runsOf = async (key: string, id: string) =>
  (await t.json('GET', `/api/connectors/${id}`, { key })).body.runs as { status: string; added: number; error: string | null }[]

describe('scheduled syncs', () => {
  test('a connector is synced again once its interval has passed, picking up what changed upstream', async () => {
    const user = await t.signUp()
    const root = notion.addPage({ title: 'Schedule handbook', blocks: [block('paragraph', 'first words')] })
    const connector = await connectConnector(t, user, { type: 'notion', config: { pages: [root] } })
    await runSyncs(t)
    expect(await runsOf(user.key, connector.id)).toMatchObject([{ status: 'succeeded', added: 1 }])

    // Not due yet: nothing is queued however often the tick runs.
    t.clock.advance(29 * MINUTE)
    expect(await queueDueSyncs(t.deps)).toBe(0)
    expect(await queueDueSyncs(t.deps)).toBe(0)

    notion.addPage({ title: 'Schedule appendix', parent: root, blocks: [block('paragraph', 'later words')] })
    t.clock.advance(2 * MINUTE)
    expect(await queueDueSyncs(t.deps)).toBe(1)
    // A second tick (or another process) does not add a second run.
    expect(await queueDueSyncs(t.deps)).toBe(0)
    await runSyncs(t)
    expect(await runsOf(user.key, connector.id)).toMatchObject([
      { status: 'succeeded', added: 1 },
      { status: 'succeeded', added: 1 },
    ])
  })

  test('a failing provider is retried once an interval, and a connector waiting for consent is never queued', async () => {
    const user = await t.signUp()
    const root = notion.addPage({ title: 'Flaky handbook', blocks: [block('paragraph', 'words')] })
    const connector = await connectConnector(t, user, { type: 'notion', config: { pages: [root] } })
    const pending = await t.json('POST', '/api/connectors', { key: user.key, body: { type: 'notion' } })
    const latest = async () => (await runsOf(user.key, connector.id))[0]
    // Notion refuses (403, not retried): the first sync fails.
    notion.failApi(403)
    try {
      await runSyncs(t)
      expect(await latest()).toMatchObject({ status: 'failed' })
      t.clock.advance(5 * MINUTE)
      await queueDueSyncs(t.deps)
      expect(await latest()).toMatchObject({ status: 'failed' })
      t.clock.advance(26 * MINUTE)
      await queueDueSyncs(t.deps)
      expect(await latest()).toMatchObject({ status: 'queued' })
      await runSyncs(t)
      expect(await latest()).toMatchObject({ status: 'failed' })
    } finally {
      notion.failApi(null)
    }
    t.clock.advance(31 * MINUTE)
    await queueDueSyncs(t.deps)
    await runSyncs(t)
    expect(await latest()).toMatchObject({ status: 'succeeded', added: 1 })
    expect(await runsOf(user.key, connector.id)).toHaveLength(3)
    expect(await runsOf(user.key, pending.body.connector.id)).toEqual([])
  })
})
