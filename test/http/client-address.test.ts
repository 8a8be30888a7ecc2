// Which client a request came from (TRUST_PROXY): the X-Forwarded-For walk on its own, then over a real listening
// server, where the socket peer exists — a spoofed header dodges no per-address limit unless the peer is a proxy
// named in TRUST_PROXY, and behind one each client gets its own sign-in count and OAuth registration quota.
import { describe, expect, test } from 'bun:test'
import { addressBehind, canonicalAddress } from '../../src/http/client-address'
import { startServer } from '../e2e/server'

describe('the X-Forwarded-For walk', () => {
  test('without TRUST_PROXY the socket peer is the client, whatever the header says', () => {
    expect(addressBehind(false, '203.0.113.7', '198.51.100.1')).toBe('203.0.113.7')
  })

  test('TRUST_PROXY=true: the peer is one proxy, the client is the address it appended (the rightmost)', () => {
    expect(addressBehind(true, '10.0.0.1', '6.6.6.6, 203.0.113.7')).toBe('203.0.113.7')
    expect(addressBehind(true, '10.0.0.1', null)).toBe('10.0.0.1')
  })

  test('a list: the header counts only from a listed peer, and is walked leftwards past listed proxies only', () => {
    const trust = ['10.0.0.0/8', 'fd00::/8']
    // 6.6.6.6 is what the client wrote itself; 10.0.0.2 is a second proxy of ours.
    expect(addressBehind(trust, '10.0.0.1', '6.6.6.6, 203.0.113.7, 10.0.0.2')).toBe('203.0.113.7')
    expect(addressBehind(trust, '203.0.113.9', '6.6.6.6')).toBe('203.0.113.9')
    expect(addressBehind(trust, 'fd00::1', '2001:DB8::1')).toBe('2001:db8::1')
    expect(addressBehind(trust, '::ffff:10.0.0.1', '203.0.113.7')).toBe('203.0.113.7')
    // Only proxies all the way: the leftmost of them.
    expect(addressBehind(trust, '10.0.0.1', '10.0.0.3, 10.0.0.2')).toBe('10.0.0.3')
  })

  test('an entry that is no address ends the walk at the last address a trusted proxy vouched for', () => {
    expect(addressBehind(['10.0.0.0/8'], '10.0.0.1', 'made-up, 10.0.0.3')).toBe('10.0.0.3')
    expect(addressBehind(true, '10.0.0.1', 'made-up')).toBe('10.0.0.1')
  })

  test('one spelling per address: ports, brackets, case, zeros and IPv4-mapped IPv6', () => {
    expect(canonicalAddress(' 203.0.113.7:5000 ')).toBe('203.0.113.7')
    expect(canonicalAddress('[2001:DB8:0:0::1]:443')).toBe('2001:db8::1')
    expect(canonicalAddress('::ffff:203.0.113.7')).toBe('203.0.113.7')
    expect(canonicalAddress('fe80::1%eth0')).toBe('fe80::1')
    expect(canonicalAddress('unknown')).toBeNull()
    expect(addressBehind(false, null, '203.0.113.7')).toBe('unknown')
  })
})

const signIn = (url: string, email: string, forwardedFor: string, password = 'wrong password!') =>
  fetch(`${url}/api/auth/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
    body: JSON.stringify({ email, password }),
  })
const email = () => `addr-${crypto.randomUUID().slice(0, 8)}@example.com`

describe('sign-in over a real socket', () => {
  test('without TRUST_PROXY, rotating X-Forwarded-For does not dodge the per-address lock', async () => {
    const s = await startServer()
    try {
      // 20 failures, each for another email (no account lock) and claiming another address.
      for (let i = 0; i < 20; i++) expect((await signIn(s.url, email(), `198.51.100.${i}`)).status).toBe(401)
      const res = await signIn(s.url, email(), '198.51.100.200')
      expect(res.status).toBe(429)
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0)
      expect((await res.json()).error).toContain('from this address')
    } finally {
      await s.stop()
    }
  }, 60_000)

  test('behind a trusted proxy each client has its own count: one locked out, another still signs in', async () => {
    const s = await startServer({ env: { TRUST_PROXY: '127.0.0.1' } })
    try {
      const up = await fetch(`${s.url}/api/auth/sign-up`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'bea@example.com', password: 'correct horse battery' }),
      })
      expect(up.status).toBe(201)
      // Client A guesses 20 times at other emails; the proxy appends its address after whatever A wrote.
      for (let i = 0; i < 20; i++) expect((await signIn(s.url, email(), `10.9.9.${i}, 203.0.113.7`)).status).toBe(401)
      expect((await signIn(s.url, email(), '203.0.113.7')).status).toBe(429)
      // Client B, through the same proxy, is not A.
      expect((await signIn(s.url, 'bea@example.com', '198.51.100.9', 'correct horse battery')).status).toBe(200)
    } finally {
      await s.stop()
    }
  }, 60_000)
})

describe('OAuth client registration quota (OAUTH_REGISTRATIONS_PER_HOUR) over a real socket', () => {
  const register = (url: string, forwardedFor: string) =>
    fetch(`${url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
      body: JSON.stringify({
        client_name: 'c',
        redirect_uris: ['http://localhost:6274/oauth/callback'],
        token_endpoint_auth_method: 'none',
      }),
    }).then((res) => res.status)

  test('behind a trusted proxy two clients get separate quotas', async () => {
    const s = await startServer({ env: { TRUST_PROXY: '127.0.0.0/8', OAUTH_REGISTRATIONS_PER_HOUR: '2' } })
    try {
      expect([await register(s.url, '203.0.113.7'), await register(s.url, '203.0.113.7')]).toEqual([201, 201])
      expect(await register(s.url, '203.0.113.7')).toBe(429)
      expect(await register(s.url, '198.51.100.9')).toBe(201)
    } finally {
      await s.stop()
    }
  })

  test("without TRUST_PROXY the header is ignored: the quota is the socket peer's", async () => {
    const s = await startServer({ env: { OAUTH_REGISTRATIONS_PER_HOUR: '2' } })
    try {
      expect([await register(s.url, '203.0.113.7'), await register(s.url, '198.51.100.9')]).toEqual([201, 201])
      expect(await register(s.url, '192.0.2.1')).toBe(429)
    } finally {
      await s.stop()
    }
  })
})
