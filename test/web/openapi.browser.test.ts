// The API explorer (/openapi) in a real browser, under its Content-Security-Policy: it renders the document
// and runs "Try it out" with no policy violation, and a key pasted into Authorize is gone once the page
// reloads — kept in no storage any script of this origin could read.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { chromiumMissing, startHarness, type Harness, type Session } from './browser'

const missing = chromiumMissing()
let h: Harness
let s: Session
beforeAll(async () => {
  if (missing) return
  h = await startHarness()
  s = await h.open()
})
afterAll(async () => {
  await h?.stop()
})

const KEY = `svc_${'k'.repeat(40)}`

describe.skipIf(!!missing)('the API explorer', () => {
  test('renders the document and runs a request under its policy', async () => {
    await s.go('/openapi')
    await s.page.locator('.swagger-ui .info .title').getByText('Knowledge Memory Service').waitFor()
    await s.page.getByRole('button', { name: /GET\s+\/\s+Service health/ }).click()
    await s.page.getByRole('button', { name: 'Try it out' }).click()
    await s.page.getByRole('button', { name: 'Execute' }).click()
    await s.page.locator('.live-responses-table .response-col_status').getByText('200').waitFor()
    expect(s.problems).toEqual([])
  })

  test('a key pasted into Authorize is kept in no storage: not in localStorage or sessionStorage, gone after a reload', async () => {
    await s.go('/openapi')
    await s.page.getByRole('button', { name: 'Authorize' }).first().click()
    await s.page.locator('#auth-bearer-value').fill(KEY)
    await s.page.getByRole('button', { name: 'Apply credentials' }).first().click()
    await s.page.getByRole('button', { name: 'Remove authorization' }).first().waitFor()
    const stored = () => s.page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }))
    expect(await stored()).not.toContain(KEY)

    await s.page.reload()
    await s.page.locator('.swagger-ui .info .title').waitFor()
    await s.page.getByRole('button', { name: 'Authorize' }).first().click()
    expect(await s.page.locator('#auth-bearer-value').inputValue()).toBe('')
    expect(await stored()).not.toContain(KEY)
    expect(s.problems).toEqual([])
  })
})
