// Trivial passwords are refused at sign-up with a 400 that says why (src/modules/auth/password-rules.ts): too
// short, only spaces, one character repeated, one of the most common, or the email itself; a passphrase is fine.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { passwordProblem } from '../../src/modules/auth/password-rules'
import { createTestApp, type TestApp } from '../harness'

setDefaultTimeout(30_000)

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

const signUp = (email: string, password: string) => t.json('POST', '/api/auth/sign-up', { body: { email, password } })
const email = () => `rules-${crypto.randomUUID().slice(0, 8)}@example.com`

describe('sign-up refuses a trivial password with 400 and the reason, and creates nothing', () => {
  test.each([
    ['12345678', 'most common'],
    ['password', 'most common'],
    ['PassWord', 'most common'],
    ['Password123!', 'most common'],
    ['qwertyui', 'most common'],
    ['iloveyou', 'most common'],
    ['monkey2024', 'most common'],
    ['        ', 'only spaces'],
    ['11111111', 'one character repeated'],
    ['zzzzzzzzzzzz', 'one character repeated'],
  ])('%p', async (password, reason) => {
    const address = email()
    const res = await signUp(address, password)
    expect(res.status).toBe(400)
    expect(res.body.error).toContain(reason)
    expect(res.body.error).toStartWith('password')
    // Nothing was created: the same email signs up with a good password.
    expect((await signUp(address, 'correct horse battery')).status).toBe(201)
  })

  test('the email or the name before its @, in any case, with digits tacked on or not', async () => {
    for (const [address, password] of [
      ['ada.lovelace@example.com', 'Ada.Lovelace'],
      ['charles.babbage@example.com', 'charles.babbage1815'],
      ['grace@hopper.example', 'GRACE@HOPPER.EXAMPLE'],
    ] as const) {
      // Fine for someone else: it is this email that rules it out.
      expect((await signUp(email(), password)).status).toBe(201)
      const own = await signUp(address, password)
      expect({ address, status: own.status, error: own.body.error }).toEqual({
        address,
        status: 400,
        error: 'password must not be your email address or the name before its @',
      })
    }
  })

  test('a passphrase, and a long uncommon password, are accepted', async () => {
    expect((await signUp(email(), 'correct horse battery')).status).toBe(201)
    expect((await signUp(email(), 'v8#Qm2!zTp')).status).toBe(201)
  })
})

describe('passwordProblem, for every way a password is set', () => {
  test('null for a good password; the reason for a bad one; the length counted in characters', () => {
    expect(passwordProblem('correct horse battery', 'someone@example.com')).toBeNull()
    expect(passwordProblem('short')).toBe('password must be at least 8 characters')
    expect(passwordProblem('ééééééé')).toBe('password must be at least 8 characters')
    expect(passwordProblem('  \t  \n  ')).toBe('password must not be only spaces')
    expect(passwordProblem('someone!', 'someone@example.com')).toBe('password must not be your email address or the name before its @')
    expect(passwordProblem('someone!')).toBeNull()
  })
})
