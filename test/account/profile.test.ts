// /api/profile and /api/avatar: a person reads and edits their name and email (lowercased, one account per
// address) and uploads an avatar that is recognised by its bytes, never by the name or type the client
// declares; the avatar is served back byte for byte to its owner only, under a URL that changes with each upload.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { BASE, createTestApp, type TestApp } from '../harness'
import { IMAGES, pathOf, pngOfSize, uploadAvatar } from './account.fixtures'

setDefaultTimeout(30_000)

const PASSWORD = 'correct horse battery'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

const getProfile = async (key: string) => {
  const res = await t.json('GET', '/api/profile', { key })
  expect(res.status).toBe(200)
  return res.body as { id: string; email: string; name: string | null; avatar_url: string | null; [field: string]: unknown }
}

describe('profile', () => {
  test('a new account: its id and email, no name, no avatar', async () => {
    const u = await t.signUp()
    expect(await getProfile(u.key)).toEqual({
      id: u.id,
      email: u.email,
      email_verified: false,
      pending_email: null,
      identities: [],
      name: null,
      avatar_url: null,
    })
    // The dashboard reads the same with its cookie.
    expect((await t.json('GET', '/api/profile', { cookie: u.cookie })).body).toEqual({
      id: u.id,
      email: u.email,
      email_verified: false,
      pending_email: null,
      identities: [],
      name: null,
      avatar_url: null,
    })
  })

  test('PATCH a name: trimmed, kept, and cleared with null or blanks', async () => {
    const u = await t.signUp()
    const named = await t.json('PATCH', '/api/profile', { cookie: u.cookie, body: { name: '  Ada Lovelace  ' } })
    expect(named.status).toBe(200)
    expect(named.body).toEqual({
      id: u.id,
      email: u.email,
      email_verified: false,
      pending_email: null,
      identities: [],
      name: 'Ada Lovelace',
      avatar_url: null,
    })
    expect((await getProfile(u.key)).name).toBe('Ada Lovelace')
    expect((await t.json('PATCH', '/api/profile', { cookie: u.cookie, body: { name: null } })).body.name).toBeNull()
    await t.json('PATCH', '/api/profile', { cookie: u.cookie, body: { name: 'Ada' } })
    expect((await t.json('PATCH', '/api/profile', { cookie: u.cookie, body: { name: '   ' } })).body.name).toBeNull()
  })

  test('PATCH an email: stored lowercased; the person then signs in with it (in any case), not with the old one', async () => {
    const u = await t.signUp()
    const address = `New.Address-${crypto.randomUUID().slice(0, 8)}@Example.COM`
    const res = await t.json('PATCH', '/api/profile', { cookie: u.cookie, body: { email: address, current_password: PASSWORD } })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      id: u.id,
      email: address.toLowerCase(),
      email_verified: false,
      pending_email: null,
      identities: [],
      name: null,
      avatar_url: null,
    })
    expect((await getProfile(u.key)).email).toBe(address.toLowerCase())

    const signIn = (email: string) => t.json('POST', '/api/auth/sign-in', { body: { email, password: 'correct horse battery' } })
    const withNew = await signIn(address)
    expect(withNew.status).toBe(200)
    expect(withNew.body.user.id).toBe(u.id)
    expect((await signIn(u.email)).status).toBe(401)
  })

  test('name and email in one PATCH; the same email again is fine', async () => {
    const u = await t.signUp()
    const res = await t.json('PATCH', '/api/profile', { cookie: u.cookie, body: { name: 'Grace', email: u.email.toUpperCase() } })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      id: u.id,
      email: u.email,
      email_verified: false,
      pending_email: null,
      identities: [],
      name: 'Grace',
      avatar_url: null,
    })
  })

  test('an email that belongs to another account → 409 (whatever its case); nothing changes', async () => {
    const u = await t.signUp()
    const other = await t.signUp()
    for (const email of [other.email, other.email.toUpperCase()]) {
      const res = await t.json('PATCH', '/api/profile', {
        cookie: u.cookie,
        body: { email, name: 'Should not stick', current_password: PASSWORD },
      })
      expect(res.status).toBe(409)
      expect(res.body.error).toContain('email')
    }
    expect(await getProfile(u.key)).toEqual({
      id: u.id,
      email: u.email,
      email_verified: false,
      pending_email: null,
      identities: [],
      name: null,
      avatar_url: null,
    })
    expect((await getProfile(other.key)).email).toBe(other.email)
  })

  // The address is checked to be free and then written in two statements: the unique index decides a race (409).
  test('two accounts taking the same new address at once: one gets it, the other 409', async () => {
    const a = await t.signUp()
    const b = await t.signUp()
    const email = `contested-${crypto.randomUUID().slice(0, 8)}@example.com`
    const results = await Promise.all(
      [a, b].map((u) => t.json('PATCH', '/api/profile', { cookie: u.cookie, body: { email, current_password: PASSWORD } })),
    )
    expect(results.map((r) => r.status).sort()).toEqual([200, 409])
  })

  test('an invalid email → 400 naming email; an empty body → 400; a name over 100 characters → 400 naming name', async () => {
    const u = await t.signUp()
    for (const email of ['not an email', 'missing-at.example.com', '', 'a@']) {
      const res = await t.json('PATCH', '/api/profile', { cookie: u.cookie, body: { email } })
      expect({ email, status: res.status }).toEqual({ email, status: 400 })
      expect(res.body.error).toContain('email')
    }
    const empty = await t.json('PATCH', '/api/profile', { cookie: u.cookie, body: {} })
    expect(empty.status).toBe(400)
    expect(empty.body.error).toContain('name or email')
    const long = await t.json('PATCH', '/api/profile', { cookie: u.cookie, body: { name: 'x'.repeat(101) } })
    expect(long.status).toBe(400)
    expect(long.body.error).toContain('name')
    expect(await getProfile(u.key)).toEqual({
      id: u.id,
      email: u.email,
      email_verified: false,
      pending_email: null,
      identities: [],
      name: null,
      avatar_url: null,
    })
  })

  test('without credentials → 401', async () => {
    expect((await t.json('GET', '/api/profile')).status).toBe(401)
    expect((await t.json('PATCH', '/api/profile', { body: { name: 'x' } })).status).toBe(401)
  })
})

describe('avatar upload', () => {
  for (const [format, image] of Object.entries(IMAGES)) {
    test(`a ${format.toUpperCase()} is accepted; its URL serves the exact bytes as ${image.type}`, async () => {
      const u = await t.signUp()
      const res = await uploadAvatar(t, u, image.bytes, { type: image.type, name: `me.${format}` })
      expect(res.status).toBe(200)
      expect(res.body.id).toBe(u.id)
      expect(res.body.avatar_url).toStartWith(`${BASE}/api/avatar/`)
      expect((await getProfile(u.key)).avatar_url).toBe(res.body.avatar_url)

      const served = await t.request('GET', pathOf(res.body.avatar_url), { key: u.key })
      expect(served.status).toBe(200)
      expect(served.headers.get('content-type')).toBe(image.type)
      expect(served.headers.get('x-content-type-options')).toBe('nosniff')
      expect(new Uint8Array(await served.arrayBuffer())).toEqual(image.bytes)
    })
  }

  test('the declared type and file name are ignored: a PNG sent as x.txt, text/plain is stored and served as image/png', async () => {
    const u = await t.signUp()
    const res = await uploadAvatar(t, u, IMAGES.png.bytes, { type: 'text/plain', name: 'x.txt' })
    expect(res.status).toBe(200)
    const served = await t.request('GET', pathOf(res.body.avatar_url), { key: u.key })
    expect(served.headers.get('content-type')).toBe('image/png')
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(IMAGES.png.bytes)
  })

  test('a JPEG declared as a GIF is served as what it is', async () => {
    const u = await t.signUp()
    const res = await uploadAvatar(t, u, IMAGES.jpeg.bytes, { type: 'image/gif', name: 'me.gif' })
    expect(res.status).toBe(200)
    expect((await t.request('GET', pathOf(res.body.avatar_url), { key: u.key })).headers.get('content-type')).toBe('image/jpeg')
  })

  const refused: [string, Uint8Array | string][] = [
    ['an SVG', '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><circle r="5"/></svg>'],
    ['plain text', 'hello, I am not a picture'],
    ['HTML', '<!doctype html><script>alert(1)</script>'],
    ['an empty file', new Uint8Array(0)],
    ['a truncated PNG signature', IMAGES.png.bytes.slice(0, 5)],
    ['a RIFF that is not WebP', new TextEncoder().encode('RIFF\x1a\x00\x00\x00WAVEfmt ')],
  ]
  for (const [what, content] of refused) {
    test(`${what} named a.png with type image/png → 415; the avatar stays as it was`, async () => {
      const u = await t.signUp()
      const before = await uploadAvatar(t, u, IMAGES.gif.bytes, { type: 'image/gif' })
      expect(before.status).toBe(200)
      const res = await uploadAvatar(t, u, content, { type: 'image/png', name: 'a.png' })
      expect(res.status).toBe(415)
      expect(res.body.error).toContain('file')
      const profile = await getProfile(u.key)
      expect(profile.avatar_url).toBe(before.body.avatar_url)
      const served = await t.request('GET', pathOf(profile.avatar_url!), { key: u.key })
      expect(served.headers.get('content-type')).toBe('image/gif')
      expect(new Uint8Array(await served.arrayBuffer())).toEqual(IMAGES.gif.bytes)
    })
  }

  test('exactly 1 MiB is accepted; one byte more → 413 naming file, and nothing is stored', async () => {
    const u = await t.signUp()
    const limit = pngOfSize(1024 * 1024)
    const ok = await uploadAvatar(t, u, limit, { type: 'image/png' })
    expect(ok.status).toBe(200)
    const served = await t.request('GET', pathOf(ok.body.avatar_url), { key: u.key })
    expect((await served.arrayBuffer()).byteLength).toBe(1024 * 1024)

    t.clock.advance(1000)
    const tooBig = await uploadAvatar(t, u, pngOfSize(1024 * 1024 + 1), { type: 'image/png' })
    expect(tooBig.status).toBe(413)
    expect(tooBig.body.error).toContain('file')
    expect((await getProfile(u.key)).avatar_url).toBe(ok.body.avatar_url)
  })

  test('a file far over the limit (3 MiB) → 413 too', async () => {
    const u = await t.signUp()
    const res = await uploadAvatar(t, u, pngOfSize(3 * 1024 * 1024), { type: 'image/png' })
    expect(res.status).toBe(413)
    expect(typeof res.body.error).toBe('string')
    expect((await getProfile(u.key)).avatar_url).toBeNull()
  })

  test('no file → 400 naming file (no field, another field, a text value in its place)', async () => {
    const u = await t.signUp()
    const forms: FormData[] = [new FormData(), new FormData(), new FormData()]
    forms[1]!.append('avatar', new Blob([IMAGES.png.bytes]), 'a.png')
    forms[2]!.append('file', 'not a file')
    for (const form of forms) {
      const res = await t.json('POST', '/api/avatar', { key: u.key, body: form })
      expect(res.status).toBe(400)
      expect(res.body.error).toContain('file')
    }
    expect((await getProfile(u.key)).avatar_url).toBeNull()
  })

  test('a new upload changes avatar_url; the new URL serves the new image', async () => {
    const u = await t.signUp()
    const first = await uploadAvatar(t, u, IMAGES.png.bytes, { type: 'image/png' })
    t.clock.advance(60_000)
    const second = await uploadAvatar(t, u, IMAGES.webp.bytes, { type: 'image/webp' })
    expect(second.status).toBe(200)
    expect(second.body.avatar_url).not.toBe(first.body.avatar_url)
    const served = await t.request('GET', pathOf(second.body.avatar_url), { key: u.key })
    expect(served.headers.get('content-type')).toBe('image/webp')
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(IMAGES.webp.bytes)
  })

  test('the avatar is served to its owner with the same credentials the dashboard uses (the cookie), and to no one else', async () => {
    const u = await t.signUp()
    const other = await t.signUp()
    const { body } = await uploadAvatar(t, u, IMAGES.png.bytes, { type: 'image/png' })
    const path = pathOf(body.avatar_url)

    const byCookie = await t.request('GET', path, { cookie: u.cookie })
    expect(byCookie.status).toBe(200)
    expect(new Uint8Array(await byCookie.arrayBuffer())).toEqual(IMAGES.png.bytes)

    // Another user gets the same 404 as for an account without an avatar — the URL reveals nothing.
    const foreign = await t.json('GET', path, { key: other.key })
    expect(foreign.status).toBe(404)
    const none = await t.json('GET', `/api/avatar/${other.id}`, { key: other.key })
    expect(none.status).toBe(404)
    expect(foreign.body).toEqual(none.body)
    const missing = await t.json('GET', `/api/avatar/${crypto.randomUUID()}`, { key: u.key })
    expect(missing.status).toBe(404)

    expect((await t.request('GET', path)).status).toBe(401)
  })

  test('a cookie-authenticated upload without an Origin, or from a foreign one → 403, and nothing is stored', async () => {
    const u = await t.signUp()
    const form = new FormData()
    form.append('file', new Blob([IMAGES.png.bytes], { type: 'image/png' }), 'a.png')
    // The harness adds the service's own Origin to cookie requests; this one is sent bare, as a cross-site form would be.
    const bare = await t.app.handle(new Request(`${BASE}/api/avatar`, { method: 'POST', headers: { cookie: u.cookie }, body: form }))
    expect(bare.status).toBe(403)
    expect(((await bare.json()) as { error: string }).error).toContain('origin')
    const foreign = await uploadAvatar(
      t,
      u,
      IMAGES.png.bytes,
      { type: 'image/png' },
      { cookie: u.cookie, headers: { origin: 'https://evil.example' } },
    )
    expect(foreign.status).toBe(403)
    expect((await getProfile(u.key)).avatar_url).toBeNull()

    // From the dashboard's own origin the same upload works.
    const own = await uploadAvatar(t, u, IMAGES.png.bytes, { type: 'image/png' }, { cookie: u.cookie })
    expect(own.status).toBe(200)
  })

  test('without credentials → 401 (before the body is looked at)', async () => {
    const form = new FormData()
    form.append('file', new Blob(['not an image']), 'a.png')
    expect((await t.json('POST', '/api/avatar', { body: form })).status).toBe(401)
  })
})
