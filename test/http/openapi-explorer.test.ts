// /openapi, the page where people paste API keys: served with a Content-Security-Policy that allows only its
// own scripts (its one inline script by hash) and no framing, X-Frame-Options DENY, and a Swagger UI told not to persist the key.
// test/web/openapi.browser.test.ts shows it working under that policy in Chromium.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp } from '../harness'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

const directives = (policy: string) =>
  Object.fromEntries(
    policy
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([name, ...values]) => [name, values]),
  )

describe('the API explorer page', () => {
  test('is never framed and runs only scripts and styles of its own origin', async () => {
    const res = await t.request('GET', '/openapi')
    expect(res.status).toBe(200)
    expect(res.headers.get('x-frame-options')).toBe('DENY')
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    const policy = directives(res.headers.get('content-security-policy') ?? '')
    expect(policy).toMatchObject({
      'default-src': ["'none'"],
      'script-src': ["'self'", expect.stringMatching(/^'sha256-[A-Za-z0-9+/]+=*'$/)],
      'style-src': ["'self'"],
      'connect-src': ["'self'"],
      'object-src': ["'none'"],
      'base-uri': ["'none'"],
      'frame-ancestors': ["'none'"],
    })
  })

  test('its one inline script is the one the policy allows by hash; the others are files it serves', async () => {
    const res = await t.request('GET', '/openapi')
    const allowed = directives(res.headers.get('content-security-policy')!)['script-src'] as string[]
    const html = await res.text()
    const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)]
    const inline = scripts.filter(([, , body]) => body!.trim())
    expect(inline).toHaveLength(1)
    const hash = new Bun.CryptoHasher('sha256').update(inline[0]![2]!).digest('base64')
    expect(allowed).toEqual(["'self'", `'sha256-${hash}'`])
    for (const [, attributes] of scripts.filter(([, , body]) => !body!.trim())) {
      const src = /src="([^"]+)"/.exec(attributes!)![1]!
      expect(src).toStartWith('/openapi/assets/')
      expect((await t.request('GET', src)).status).toBe(200)
    }
  })

  test('Swagger UI is told not to persist a pasted key, and drops one an earlier version kept', async () => {
    const html = await (await t.request('GET', '/openapi')).text()
    expect(html).toContain('"persistAuthorization": false')
    expect(html).not.toContain('"persistAuthorization": true')
    expect(html).toContain("localStorage.removeItem('authorized')")
  })
})
