// /app is served by the API's own app: every /app path answers the same no-cache shell under a strict CSP;
// the bundle's assets are content-hashed, long-cached and gzipped; the favicon; the API around it is unchanged.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { iconSvg } from '../../src/extension/icon'
import { createTestApp, type TestApp } from '../harness'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

const get = (path: string, headers: Record<string, string> = {}) => t.app.handle(new Request(`http://localhost:3000${path}`, { headers }))
const assetPaths = (html: string) => [...html.matchAll(/(?:src|href)="(\/app\/assets\/[^"]+)"/g)].map((m) => m[1]!)

describe('the shell', () => {
  test.each([
    '/app',
    '/app/documents/0190b4c4-0000-7000-8000-000000000000',
    '/app/search?q=%3Cscript%3E',
    '/app/sign-in?next=/app/documents',
    '/app/review',
    // A mailed reset link, opened signed out (its token is in the #fragment, which no request carries).
    '/app/reset-password',
    '/app/forgot-password',
  ])('%s answers the shell under a strict Content-Security-Policy', async (path) => {
    const res = await get(path)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(res.headers.get('cache-control')).toBe('no-cache')
    const csp = res.headers.get('content-security-policy')!
    for (const directive of [
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self'",
      "frame-ancestors 'none'",
      "object-src 'none'",
      "base-uri 'none'",
    ])
      expect(csp).toContain(directive)
    expect(csp).not.toContain('unsafe-inline')
    expect(csp).not.toContain('unsafe-eval')
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    expect(res.headers.get('referrer-policy')).toBe('same-origin')
    const html = await res.text()
    // No inline script or style, nothing from another origin: only this origin's hashed assets.
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/)
    expect(html).not.toMatch(/<style|\sstyle=/)
    expect(html).not.toMatch(/(?:src|href)="(?:https?:)?\/\//)
    expect(assetPaths(html).length).toBe(2)
  })

  test('the query string is never reflected into the page', async () => {
    const html = await (await get('/app/search?q=%3Cscript%3Ealert(1)%3C%2Fscript%3E')).text()
    expect(html).not.toContain('alert(1)')
  })

  test('a browser holding the current shell gets 304 by its ETag', async () => {
    const first = await get('/app')
    const etag = first.headers.get('etag')!
    expect(etag).toBeTruthy()
    expect((await get('/app/documents', { 'if-none-match': etag })).status).toBe(304)
  })
})

describe('the assets', () => {
  test('are content-hashed, cached for a year, typed, and gzipped when the browser accepts it', async () => {
    const html = await (await get('/app')).text()
    for (const path of assetPaths(html)) {
      expect(path).toMatch(/\/main-[a-z0-9]{8}\.(js|css)$/)
      const plain = await get(path)
      expect(plain.status).toBe(200)
      expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
      expect(plain.headers.get('content-type')).toMatch(path.endsWith('.js') ? /^text\/javascript/ : /^text\/css/)
      expect(plain.headers.get('x-content-type-options')).toBe('nosniff')
      const text = await plain.text()
      expect(text.length).toBeGreaterThan(1000)
      const zipped = await get(path, { 'accept-encoding': 'gzip, br' })
      expect(zipped.headers.get('content-encoding')).toBe('gzip')
      expect(new TextDecoder().decode(Bun.gunzipSync(new Uint8Array(await zipped.arrayBuffer())))).toBe(text)
    }
  })

  test('an unknown asset is a 404 with { error }, not the shell', async () => {
    const res = await get('/app/assets/main-00000000.js')
    expect(res.status).toBe(404)
    expect((await res.json()).error).toContain('main-00000000.js')
  })
})

describe('the favicon', () => {
  test('the shell links /favicon.svg, served without a session: the icon the extension is drawn from', async () => {
    const shell = await (await get('/app')).text()
    expect(shell).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml">')
    const res = await get('/favicon.svg')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('image/svg+xml')
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    // One design: the committed file is what src/extension/icon.ts draws (regenerate it from there when it changes).
    expect(await res.text()).toBe(iconSvg())
  })
})

describe('the API beside it', () => {
  test('GET / is still the health check and /openapi/json does not list /app', async () => {
    const health = await get('/')
    expect(health.status).toBe(200)
    expect((await health.json()).status).toBe('ok')
    const doc = await (await get('/openapi/json')).json()
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/app'))).toEqual([])
  })

  test('GET /api/auth/providers names only the configured sign-in providers', async () => {
    expect(await (await get('/api/auth/providers')).json()).toEqual({ providers: [] })
    const withGitHub = await createTestApp({ env: { GITHUB_CLIENT_ID: 'id', GITHUB_CLIENT_SECRET: 'secret' } })
    try {
      const res = await withGitHub.app.handle(new Request('http://localhost:3000/api/auth/providers'))
      expect(await res.json()).toEqual({ providers: ['github'] })
    } finally {
      await withGitHub.close()
    }
  })
})
