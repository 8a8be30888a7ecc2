// Password guessing at POST /api/auth/sign-in: a few failures lock the email (known or not) and more lock the
// address, with 429 and Retry-After even for the right password and no argon2 work spent; locks double up to
// 15 minutes, a success clears the email's count, and the count lives in the database, not in one process.
// The clock is the harness's FakeClock; requests through app.handle all come from one address ("unknown").
import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { PASSWORD_CONCURRENCY, PASSWORD_QUEUE, passwordWork } from '../../src/lib/passwords'
import { createTestApp, type TestApp } from '../harness'

setDefaultTimeout(60_000)

const PASSWORD = 'correct horse battery'
const apps: TestApp[] = []
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close()
})
async function newApp(): Promise<TestApp> {
  const t = await createTestApp()
  apps.push(t)
  return t
}

const signIn = (t: TestApp, email: string, password = 'wrong password!') =>
  t.json('POST', '/api/auth/sign-in', { body: { email, password } })
const strangerEmail = () => `nobody-${crypto.randomUUID().slice(0, 8)}@example.com`

async function failTimes(t: TestApp, email: string, times: number) {
  for (let i = 0; i < times; i++) expect((await signIn(t, email)).status).toBe(401)
}

describe('per account', () => {
  test('after 5 failures even the right password gets 429 with Retry-After, without any argon2 work; then it works', async () => {
    const t = await newApp()
    const u = await t.signUp({ withKey: false })
    await failTimes(t, u.email, 5)

    const admitted = passwordWork.stats().admitted
    const locked = await signIn(t, u.email, PASSWORD)
    expect(locked.status).toBe(429)
    expect(locked.headers.get('retry-after')).toBe('60')
    expect(locked.body).toEqual({ error: 'too many failed sign-ins for this email; retry in 60 s', code: 'rate_limited' })
    expect(locked.headers.get('set-cookie')).toBeNull()
    expect(passwordWork.stats().admitted).toBe(admitted)

    t.clock.advance(60_000)
    expect((await signIn(t, u.email, PASSWORD)).status).toBe(200)
    // The success cleared the count: five more failures before the next lock.
    await failTimes(t, u.email, 5)
    expect((await signIn(t, u.email)).status).toBe(429)
  })

  test('the email is normalised: changing its case or padding it does not start a new count', async () => {
    const t = await newApp()
    const u = await t.signUp({ withKey: false })
    await failTimes(t, u.email, 3)
    await failTimes(t, u.email.toUpperCase(), 1)
    await failTimes(t, `  ${u.email} `, 1)
    expect((await signIn(t, u.email.toUpperCase(), PASSWORD)).status).toBe(429)
  })

  test('each failure past the limit doubles the lock: 1, 2, 4, 8, then at most 15 minutes', async () => {
    const t = await newApp()
    const u = await t.signUp({ withKey: false })
    await failTimes(t, u.email, 5)
    const locks: number[] = []
    for (let i = 0; i < 5; i++) {
      const res = await signIn(t, u.email)
      expect(res.status).toBe(429)
      const seconds = Number(res.headers.get('retry-after'))
      locks.push(seconds)
      t.clock.advance(seconds * 1000)
      await failTimes(t, u.email, 1)
    }
    expect(locks).toEqual([60, 120, 240, 480, 900])
    expect(Number((await signIn(t, u.email)).headers.get('retry-after'))).toBe(900)
  })

  test('a quiet quarter of an hour after the lock ends forgets the failures', async () => {
    const t = await newApp()
    const u = await t.signUp({ withKey: false })
    await failTimes(t, u.email, 5)
    t.clock.advance(60_000 + 15 * 60_000)
    // Counting starts again: five failures are 401s, and the lock after them is the first one (60 s), not a doubled one.
    await failTimes(t, u.email, 5)
    expect((await signIn(t, u.email)).headers.get('retry-after')).toBe('60')
  })

  test('an unknown email is locked the same way and with the same words, so a lock tells nobody who has an account', async () => {
    const t = await newApp()
    const u = await t.signUp({ withKey: false })
    const stranger = strangerEmail()
    await failTimes(t, stranger, 5)
    await failTimes(t, u.email, 5)
    const [unknown, known] = [await signIn(t, stranger), await signIn(t, u.email)]
    expect([unknown.status, known.status]).toEqual([429, 429])
    expect(unknown.body).toEqual(known.body)
  })

  test('ten guesses sent at once: five are checked, five are refused', async () => {
    const t = await newApp()
    const u = await t.signUp({ withKey: false })
    const admitted = passwordWork.stats().admitted
    const answers = await Promise.all(Array.from({ length: 10 }, () => signIn(t, u.email)))
    expect(answers.map((a) => a.status).sort()).toEqual([401, 401, 401, 401, 401, 429, 429, 429, 429, 429])
    expect(passwordWork.stats().admitted - admitted).toBe(5)
    expect(passwordWork.stats().peak).toBeLessThanOrEqual(PASSWORD_CONCURRENCY)
  })
})

describe('per address', () => {
  test('20 failures from one address, over many emails, lock it: a right password for another account gets 429', async () => {
    const t = await newApp()
    const u = await t.signUp({ withKey: false })
    // Successful sign-ins from the address do not count.
    for (let i = 0; i < 3; i++) expect((await signIn(t, u.email, PASSWORD)).status).toBe(200)
    for (let i = 0; i < 20; i++) await failTimes(t, strangerEmail(), 1)
    const res = await signIn(t, u.email, PASSWORD)
    expect(res.status).toBe(429)
    expect(res.body.error).toBe('too many failed sign-ins from this address; retry in 60 s')
    t.clock.advance(60_000)
    expect((await signIn(t, u.email, PASSWORD)).status).toBe(200)
  })
})

describe('shared state and bounded work', () => {
  test('the count is in the database: failures through one server lock the email on another', async () => {
    const a = await newApp()
    const b = await createTestApp({ deps: a.deps })
    const u = await a.signUp({ withKey: false })
    await failTimes(a, u.email, 5)
    expect((await signIn(b, u.email, PASSWORD)).status).toBe(429)
  })

  test('when argon2 is saturated a sign-in answers 503 with Retry-After, and that attempt is not counted', async () => {
    const t = await newApp()
    const u = await t.signUp({ withKey: false })
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    const fillers = Array.from({ length: PASSWORD_CONCURRENCY + PASSWORD_QUEUE }, () => passwordWork.run(() => held))
    try {
      const busy = await signIn(t, u.email)
      expect(busy.status).toBe(503)
      expect(busy.headers.get('retry-after')).toBe('1')
      expect(busy.body.error).toBeString()
    } finally {
      release()
      await Promise.all(fillers)
    }
    // Had the refused attempt counted, the fifth failure below would be a 429.
    await failTimes(t, u.email, 5)
  })
})
