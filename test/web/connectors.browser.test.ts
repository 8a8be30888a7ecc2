// The connectors screen in a real Chromium against the local Confluence fake: connect (off to the provider's
// consent and back to /app/connectors with the outcome), choose spaces, the first sync and "Sync now" with
// counts, a run stopped by the plan's document limit with its error in the history, a refused consent, a
// provider failing after consent, and disconnecting. The sync jobs run when the test drains them (no worker runs in tests); the screen polls.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { drainJobs } from '../../src/jobs/worker'
import { startConfluenceFake, type ConfluenceFake } from '../fakes/confluence'
import { axeViolations, chromiumMissing, settle, signUpInBrowser, startHarness, type Harness, type Session } from './browser'

const missing = chromiumMissing()
let h: Harness
let s: Session
let fake: ConfluenceFake

const runSyncs = () => drainJobs(h.server.deps, 'test-worker', ['sync-connector'])

async function call(method: string, path: string) {
  const cookie = (await s.context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ')
  const res = await fetch(h.server.url + path, { method, headers: { cookie, origin: h.server.url } })
  return { status: res.status, body: await res.json() }
}

async function check(name: string) {
  await settle(s.page)
  expect(await axeViolations(s.page)).toEqual([])
  expect(s.problems).toEqual([])
  await s.shot(name)
}

beforeAll(async () => {
  if (missing) return
  h = await startHarness((url) => {
    fake = startConfluenceFake({ callbackUrl: `${url}/api/connectors/oauth/callback` })
    // A free plan of three documents: the second space does not fit.
    return { ...fake.env, PLAN_FREE_DOCUMENTS: '3' }
  })
  fake.addSpace({ key: 'ENG', name: 'Engineering' })
  fake.addSpace({ key: 'HR', name: 'People' })
  fake.addPage('ENG', { title: 'Architecture', body: '<p>The quokka gateway fronts every service.</p>' })
  fake.addPage('ENG', { title: 'Runbook', body: '<p>Page the wombat rotation first.</p>' })
  fake.addPage('ENG', { title: 'Glossary', body: '<p>Narwhal: our benchmark harness.</p>' })
  fake.addPage('HR', { title: 'Holidays', body: '<p>Twenty-five days of leave.</p>' })
  s = await h.open()
  await signUpInBrowser(s)
})
afterAll(async () => {
  await h?.stop()
  await fake?.stop()
})

const card = () => s.page.locator('.connector').first()

describe.skipIf(!!missing)('connectors', () => {
  test('connecting goes through the consent and lands back with the first sync queued', async () => {
    await s.go('/app/connectors')
    await s.page.getByText('No connectors yet.', { exact: false }).waitFor()
    await check('connectors-empty')
    await s.page.getByLabel(/^Label/).fill('Team wiki')
    await s.page.getByRole('button', { name: 'Connect Confluence' }).click()
    await s.page.waitForURL(/\/app\/connectors$/)
    await s.page.getByText('Connected: the first sync is queued', { exact: false }).waitFor()
    await card().getByRole('heading', { name: 'Team wiki' }).waitFor()
    await card().getByText('connected', { exact: true }).waitFor()
    expect(await card().locator('.run').innerText()).toContain('queued')
    expect(fake.requests.some((r) => r.path === '/authorize')).toBe(true)
  })

  test('spaces are chosen from the provider, and the sync brings them in with counts', async () => {
    await card().getByRole('button', { name: 'Choose spaces' }).click()
    await card()
      .getByRole('checkbox', { name: /Engineering/ })
      .check()
    expect(
      await card()
        .getByRole('checkbox', { name: /People/ })
        .isChecked(),
    ).toBe(false)
    await check('connectors-choose')
    await card().getByRole('button', { name: 'Save selection' }).click()
    await s.page.getByText('Saved: 1 space will sync next time').waitFor()
    expect((await call('GET', '/api/connectors')).body.data[0].config).toEqual({ spaces: ['ENG'] })
    expect(await runSyncs()).toBe(1)
    // The screen polls while a run is queued or running.
    await card().locator('.run').getByText('succeeded').waitFor({ timeout: 10_000 })
    expect(await card().locator('.run').innerText()).toContain('3 added, 0 updated, 0 removed')
    const docs = (await call('GET', '/api/documents?source=connector')).body.data.map((d: { title: string }) => d.title)
    expect(docs.sort()).toEqual(['Architecture', 'Glossary', 'Runbook'])
  })

  test('sync now runs again; a run stopped by the plan shows its error in the run history', async () => {
    await card().getByRole('button', { name: 'Choose spaces' }).click()
    await card()
      .getByRole('checkbox', { name: /People/ })
      .check()
    await card().getByRole('button', { name: 'Save selection' }).click()
    await s.page.getByText('Saved: 2 spaces will sync next time').waitFor()
    await card().getByRole('button', { name: 'Sync now' }).click()
    await card().locator('.run').getByText('queued').waitFor()
    expect(await runSyncs()).toBe(1)
    await card().locator('.run').getByText('failed').waitFor({ timeout: 10_000 })
    expect(await card().locator('.run .error-text').innerText()).toContain('document limit reached')
    await card().getByRole('button', { name: 'Run history' }).click()
    const rows = card().locator('table.runs tbody tr')
    await rows.nth(1).waitFor()
    expect(await rows.count()).toBe(2)
    expect(await rows.nth(0).innerText()).toMatch(/failed[\s\S]*document limit reached/)
    expect(await rows.nth(1).innerText()).toMatch(/succeeded\s+3\s+0\s+0/)
    await check('connectors-history')
  })

  test('a refused consent comes back with the reason; disconnecting returns the connector to authorization', async () => {
    await s.page.getByRole('button', { name: /^Disconnect/ }).click()
    const dialog = s.page.getByRole('dialog', { name: /^Disconnect/ })
    await dialog.getByText('Access is revoked at the provider', { exact: false }).waitFor()
    await dialog.getByRole('button', { name: 'Disconnect' }).click()
    await card().getByText('waiting for authorization').waitFor()
    expect((await call('GET', '/api/connectors/connections')).body.data).toEqual([])

    fake.denyNextConsent()
    await card().getByRole('button', { name: 'Authorize Confluence' }).click()
    await s.page.waitForURL(/\/app\/connectors$/)
    await s.page
      .getByRole('alert')
      .getByText('The connection was not made: access was refused at the provider (access_denied)', { exact: false })
      .waitFor()
    await card().getByText('waiting for authorization').waitFor()
    await check('connectors-refused')

    // The provider failing after consent also lands back here, with the reason.
    fake.failApi(403)
    await card().getByRole('button', { name: 'Authorize Confluence' }).click()
    await s.page.waitForURL(/\/app\/connectors\?connector_id=.*&error=/)
    await s.page
      .getByRole('alert')
      .getByText(/^The connection was not made: .*403/)
      .waitFor()
    fake.failApi(null)

    await card().getByRole('button', { name: 'Authorize Confluence' }).click()
    await s.page.getByText('Connected: the first sync is queued', { exact: false }).waitFor()
    await card().getByText('connected', { exact: true }).waitFor()
  })
})
