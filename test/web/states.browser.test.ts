// The states every screen shares, in a real browser: the API's { error } shown with a retry, a 401 sending
// the person to sign in and back where they were, a 429 waited out (Retry-After counted down) and retried,
// and the keyboard path through the frame with a visible focus ring.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { sessions } from '../../db/schema'
import type { FakeClock } from '../fakes/clock'
import { axeViolations, chromiumMissing, settle, signUpInBrowser, startHarness, type Harness, type Session } from './browser'

const missing = chromiumMissing()
let h: Harness
let s: Session
let email = ''

beforeAll(async () => {
  if (missing) return
  h = await startHarness({ PLAN_FREE_SEARCH_PER_MIN: '2' })
  s = await h.open()
  email = await signUpInBrowser(s)
})
afterAll(async () => {
  await h?.stop()
})

describe.skipIf(!!missing)('shared states', () => {
  test("an error shows the API's own message and offers to try again", async () => {
    await s.go('/app/documents/0190b4c4-0000-7000-8000-000000000000')
    const alert = s.page.getByRole('alert')
    await alert.getByText('Error 404:').waitFor()
    expect(await alert.innerText()).toContain('not found')
    await alert.getByRole('button', { name: 'Try again' }).waitFor()
    expect(await axeViolations(s.page)).toEqual([])
    await s.shot('error-404')
  })

  test('a 429 counts the Retry-After seconds down, then the search runs again by itself', async () => {
    const clock = h.server.deps.clock as FakeClock
    const now = clock.now().getTime()
    // 58.5 s into the rate window: the refusal says to retry in 2 s.
    clock.set(new Date(now - (now % 60_000) + 58_500))
    await s.go('/app/search?q=one')
    await s.go('/app/search?q=two')
    await s.page.goto(`${h.server.url}/app/search?q=three`)
    const waiting = s.page.getByText(/Too many requests: trying again in \d s\./)
    await waiting.waitFor()
    await s.shot('rate-limited')
    clock.advance(60_000) // the next window, as the wait ends
    await s.page.getByText(/Nothing found for “three”/).waitFor({ timeout: 10_000 })
    expect(await waiting.count()).toBe(0)
    expect(s.problems).toEqual([])
  })

  test('a 401 goes to sign in, and signing in comes back to the same page', async () => {
    await s.go('/app')
    await h.server.deps.db.delete(sessions) // the session ends server-side (expired, or signed out elsewhere)
    await s.page.getByRole('link', { name: 'Documents', exact: true }).click()
    await s.page.waitForURL(/\/app\/sign-in\?next=%2Fapp%2Fdocuments$/)
    await s.page.getByLabel('Email').fill(email)
    await s.page.getByLabel('Password').fill('correct horse battery')
    await s.page.getByRole('button', { name: 'Sign in' }).click()
    await s.page.waitForURL(/\/app\/documents$/)
    await s.page.getByRole('heading', { name: 'Documents', level: 1 }).waitFor()
    expect(s.problems).toEqual([])
  })

  test('a wrong password says so in the form; sign-in never sends anyone off the app', async () => {
    const other = await h.open()
    await other.go('/app/sign-in?next=https://evil.example/')
    await other.page.getByLabel('Email').fill(email)
    await other.page.getByLabel('Password').fill('wrong password!')
    await other.page.getByRole('button', { name: 'Sign in' }).click()
    await other.page.getByRole('alert').getByText('Error 401:').waitFor()
    await other.page.getByLabel('Password').fill('correct horse battery')
    await other.page.getByRole('button', { name: 'Sign in' }).click()
    await other.page.getByRole('heading', { name: 'Home', level: 1 }).waitFor()
    expect(new URL(other.page.url()).pathname).toBe('/app')
    await other.close()
  })

  test('the keyboard reaches the skip link, the menu and the screens, with a visible focus ring', async () => {
    await s.go('/app')
    await s.page.keyboard.press('Tab')
    const skip = s.page.getByRole('link', { name: 'Skip to content' })
    expect(await skip.evaluate((el) => el === document.activeElement)).toBe(true)
    expect(await skip.isVisible()).toBe(true)
    let reached = false
    for (let i = 0; i < 12 && !reached; i++) {
      await s.page.keyboard.press('Tab')
      reached = await s.page.evaluate(() => document.activeElement?.textContent === 'Documents')
    }
    expect(reached).toBe(true)
    const ring = await s.page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)
    expect(ring).toBe('solid')
    await s.page.keyboard.press('Enter')
    await s.page.getByRole('heading', { name: 'Documents', level: 1 }).waitFor()
    await settle(s.page)
    // After an in-app navigation the new screen's heading has focus (screen readers announce it).
    expect(await s.page.evaluate(() => document.activeElement?.tagName)).toBe('H1')
  })
})
