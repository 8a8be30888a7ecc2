import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp } from '../harness'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

describe('accounts', () => {
  test('a newcomer signs up, gets a session cookie and a default workspace', async () => {
    const res = await t.request('POST', '/api/auth/sign-up', {
      body: { email: 'Ada@Example.com', password: 'correct horse battery', name: 'Ada' },
    })
    expect(res.status).toBe(201)
    const cookie = res.headers.get('set-cookie')!
    expect(cookie).toContain('HttpOnly')
    expect(cookie).toContain('SameSite=Lax')
    const { user } = (await res.json()) as any
    expect(user).toMatchObject({ email: 'ada@example.com', name: 'Ada', plan: 'free' })
    const session = await t.json('GET', '/api/auth/session', { cookie: cookie.split(';')[0] })
    expect(session.status).toBe(200)
    expect(session.body.user.id).toBe(user.id)
    expect(session.body.via).toBe('session')
  })

  test('sign-in with the right password works; wrong password and unknown email get the same 401', async () => {
    const u = await t.signUp({ withKey: false })
    const ok = await t.json('POST', '/api/auth/sign-in', { body: { email: u.email, password: 'correct horse battery' } })
    expect(ok.status).toBe(200)
    const wrong = await t.json('POST', '/api/auth/sign-in', { body: { email: u.email, password: 'wrong password!' } })
    const unknown = await t.json('POST', '/api/auth/sign-in', { body: { email: 'nobody@example.com', password: 'wrong password!' } })
    expect(wrong.status).toBe(401)
    expect(unknown.status).toBe(401)
    expect(wrong.body).toEqual(unknown.body)
  })

  test('sign-out ends the session', async () => {
    const u = await t.signUp({ withKey: false })
    const out = await t.request('POST', '/api/auth/sign-out', { cookie: u.cookie })
    expect(out.status).toBe(204)
    expect((await t.json('GET', '/api/auth/session', { cookie: u.cookie })).status).toBe(401)
  })
})
