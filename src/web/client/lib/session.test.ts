// Where sign-in returns to: a page of the dashboard, or an MCP client's pending authorization request; never
// another site.
import { expect, test } from 'bun:test'

// The API client reads the page's origin when it loads; outside a browser there is no page.
;(globalThis as { location?: unknown }).location ??= new URL('http://localhost/app/sign-in')
const { afterSignIn } = await import('./session')

const after = (next: string) => afterSignIn(new URLSearchParams({ next }))

test('sign-in returns to the OAuth consent request that sent the person there, and to nothing outside this service', () => {
  expect(after('/oauth/authorize?client_id=mcpc_x&state=a%2Fb')).toBe('/oauth/authorize?client_id=mcpc_x&state=a%2Fb')
  expect(after('/app/documents?tag=x')).toBe('/app/documents?tag=x')
  for (const elsewhere of [
    '//evil.example/oauth/authorize?x',
    'https://evil.example/',
    '/oauth/authorize',
    '/oauth/token?x',
    '/\\evil.example',
  ])
    expect(after(elsewhere)).toBe('/app')
})
