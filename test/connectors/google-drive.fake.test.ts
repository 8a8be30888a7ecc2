// The fake Google Drive's own wire format, so the provider tests rest on Google's documented behaviour: the
// OAuth authorize / token / revoke endpoints and the Drive API's auth, scope, `q` and `fields` checks.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { googleDriveProvider as drive } from '../../src/connectors/providers/google-drive'
import { type FakeGoogleDrive, startGoogleDriveFake } from '../fakes/google-drive'
import { s256 } from '../fakes/oauth-provider'

const CALLBACK = 'http://127.0.0.1:1/connections/google_drive/callback'
let fake: FakeGoogleDrive

beforeEach(() => {
  fake = startGoogleDriveFake({ callbackUrl: CALLBACK })
})
afterEach(() => fake.stop())

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`
const post = (url: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form),
  })

async function authorize(extra: Record<string, string | undefined> = {}) {
  const verifier = randomBytes(32).toString('base64url')
  const url = new URL(fake.env.GOOGLE_AUTH_URL!)
  const params = {
    client_id: fake.clientId,
    redirect_uri: CALLBACK,
    response_type: 'code',
    scope: drive.scopes.join(' '),
    state: 'st-1',
    code_challenge: s256(verifier),
    code_challenge_method: 'S256',
    ...drive.authorizeParams,
    ...extra,
  }
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v)
  const res = await fetch(url, { redirect: 'manual' })
  const callback = res.status === 302 ? new URL(res.headers.get('location')!) : null
  return { res, verifier, callback, code: callback?.searchParams.get('code') ?? '' }
}

const exchange = (
  code: string,
  verifier: string,
  headers: Record<string, string> = { authorization: basic(fake.clientId, fake.clientSecret) },
  extra: Record<string, string> = {},
) =>
  post(
    fake.env.GOOGLE_TOKEN_URL!,
    { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: verifier, ...extra },
    headers,
  )

async function tokens() {
  const { code, verifier } = await authorize()
  return (await (await exchange(code, verifier)).json()) as {
    access_token: string
    refresh_token: string
    expires_in: number
    scope: string
    token_type: string
  }
}

const driveGet = (path: string, token: string) => fetch(fake.baseUrl + path, { headers: { authorization: `Bearer ${token}` } })
type DriveErrorBody = { error: { code: number; message: string; errors: { reason: string; domain: string }[] } }

describe('fake google oauth', () => {
  test('authorize consents at once and sends code, state and granted scope to the redirect_uri', async () => {
    const { callback } = await authorize()
    expect(callback?.origin + callback!.pathname).toBe(CALLBACK)
    expect(callback!.searchParams.get('state')).toBe('st-1')
    expect(callback!.searchParams.get('code')).toStartWith('4/0A')
    expect(callback!.searchParams.get('scope')).toBe('https://www.googleapis.com/auth/drive.readonly')
  })

  test('authorize refuses a bad client, redirect_uri, response_type, scope or prompt; a refusal goes back as access_denied', async () => {
    expect((await authorize({ client_id: 'other' })).res.status).toBe(401)
    expect((await authorize({ redirect_uri: 'http://127.0.0.1:1/elsewhere' })).res.status).toBe(400)
    expect((await authorize({ response_type: 'token' })).res.status).toBe(400)
    expect((await authorize({ scope: undefined })).res.status).toBe(400)
    expect((await authorize({ scope: 'drive.everything' })).res.status).toBe(400)
    expect((await authorize({ prompt: 'always' })).res.status).toBe(400)
    fake.denyNextConsent()
    const denied = await authorize()
    expect(Object.fromEntries(denied.callback!.searchParams)).toEqual({ error: 'access_denied', state: 'st-1' })
    expect((await authorize()).code).not.toBe('')
  })

  test('the code exchange takes Basic or body client auth (not both), checks PKCE and is single use', async () => {
    const a = await authorize()
    const viaBasic = await exchange(a.code, a.verifier)
    const body = (await viaBasic.json()) as Record<string, unknown>
    expect(body).toMatchObject({ expires_in: 3599, token_type: 'Bearer', scope: 'https://www.googleapis.com/auth/drive.readonly' })
    expect(body.access_token).toStartWith('ya29.')
    expect(body.refresh_token).toStartWith('1//')
    const again = await exchange(a.code, a.verifier)
    expect(again.status).toBe(400)
    expect(await again.json()).toMatchObject({ error: 'invalid_grant' })

    const b = await authorize({ access_type: undefined })
    const viaBody = await exchange(b.code, b.verifier, {}, { client_id: fake.clientId, client_secret: fake.clientSecret })
    expect(viaBody.status).toBe(200)
    expect((await viaBody.json()) as object).not.toHaveProperty('refresh_token') // online access: no refresh token

    const c = await authorize()
    const both = await exchange(
      c.code,
      c.verifier,
      { authorization: basic(fake.clientId, fake.clientSecret) },
      { client_secret: fake.clientSecret },
    )
    expect(both.status).toBe(400)
    expect(await both.json()).toMatchObject({ error: 'invalid_request' })

    const d = await authorize()
    const badVerifier = await exchange(d.code, 'wrong-verifier-wrong-verifier-wrong-verifier')
    expect(badVerifier.status).toBe(400)
    expect(await badVerifier.json()).toMatchObject({ error: 'invalid_grant' })
  })

  test('a bad client secret is 401 invalid_client', async () => {
    const a = await authorize()
    const res = await exchange(a.code, a.verifier, { authorization: basic(fake.clientId, 'nope') })
    expect(res.status).toBe(401)
    expect(await res.json()).toEqual({ error: 'invalid_client', error_description: 'Unauthorized' })
  })

  test('refresh gives a new access token and no new refresh token; an expired token is refused until then', async () => {
    const t = await tokens()
    fake.expireAccessTokens()
    const expired = await driveGet('/drive/v3/about?fields=user', t.access_token)
    expect(expired.status).toBe(401)
    expect(((await expired.json()) as DriveErrorBody).error.errors[0]!.reason).toBe('authError')
    const res = await post(
      fake.env.GOOGLE_TOKEN_URL!,
      { grant_type: 'refresh_token', refresh_token: t.refresh_token },
      { authorization: basic(fake.clientId, fake.clientSecret) },
    )
    const body = (await res.json()) as Record<string, unknown>
    expect(body).toMatchObject({ expires_in: 3599, token_type: 'Bearer' })
    expect(body).not.toHaveProperty('refresh_token')
    expect((await driveGet('/drive/v3/about?fields=user', body.access_token as string)).status).toBe(200)
  })

  test('revoking the refresh token ends its access tokens; an unknown token is invalid_token', async () => {
    const t = await tokens()
    const res = await post(fake.env.GOOGLE_REVOKE_URL!, { token: t.refresh_token })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({})
    expect(fake.revokedTokens).toEqual([t.refresh_token])
    expect((await driveGet('/drive/v3/about?fields=user', t.access_token)).status).toBe(401)
    const refresh = await post(
      fake.env.GOOGLE_TOKEN_URL!,
      { grant_type: 'refresh_token', refresh_token: t.refresh_token },
      { authorization: basic(fake.clientId, fake.clientSecret) },
    )
    expect(await refresh.json()).toMatchObject({ error: 'invalid_grant' })
    const unknown = await post(fake.env.GOOGLE_REVOKE_URL!, { token: 'never-issued' })
    expect(unknown.status).toBe(400)
    expect(await unknown.json()).toMatchObject({ error: 'invalid_token' })
  })
})

describe('fake drive api', () => {
  test('a token without a Drive scope is refused with insufficientPermissions', async () => {
    const a = await authorize({ scope: 'openid email' })
    const t = (await (await exchange(a.code, a.verifier)).json()) as { access_token: string }
    const res = await driveGet('/drive/v3/about?fields=user', t.access_token)
    expect(res.status).toBe(403)
    expect(((await res.json()) as DriveErrorBody).error.errors[0]!.reason).toBe('insufficientPermissions')
  })

  test('q outside the supported syntax, unknown fields or params, and about without fields are 400', async () => {
    const { access_token } = await tokens()
    const q = (value: string) => driveGet(`/drive/v3/files?q=${encodeURIComponent(value)}`, access_token)
    expect((await q("'x' in parents and (trashed = false or mimeType != 'a/b')")).status).toBe(200)
    for (const bad of ["parents in 'x'", 'trashed = maybe', "modifiedTime > '2024-01-01'", "'x' in parents and", '(trashed = false']) {
      const res = await q(bad)
      expect(res.status).toBe(400)
      expect(((await res.json()) as DriveErrorBody).error.message).toBe('Invalid Value')
    }
    expect((await driveGet('/drive/v3/files?fields=files(id,versoin)', access_token)).status).toBe(400)
    expect((await driveGet('/drive/v3/files?page_token=abc', access_token)).status).toBe(400)
    expect((await driveGet('/drive/v3/about', access_token)).status).toBe(400)
  })

  test('files.list answers only the fields asked for, trashed files unless excluded, and pages by token', async () => {
    const { access_token } = await tokens()
    for (let i = 0; i < 3; i++) fake.addFile({ name: `f${i}.txt`, content: `${i}` })
    fake.trashFile([...fake.files.keys()][0]!)
    const first = (await (await driveGet('/drive/v3/files?pageSize=2', access_token)).json()) as {
      files: Record<string, unknown>[]
      nextPageToken: string
    }
    expect(Object.keys(first.files[0]!).sort()).toEqual(['id', 'kind', 'mimeType', 'name'])
    expect(first.files.map((f) => f.name)).toEqual(['f0.txt', 'f1.txt'])
    const second = (await (await driveGet(`/drive/v3/files?pageSize=2&pageToken=${first.nextPageToken}`, access_token)).json()) as {
      files: { name: string }[]
      nextPageToken?: string
    }
    expect(second.files.map((f) => f.name)).toEqual(['f2.txt'])
    expect(second.nextPageToken).toBeUndefined()
    const otherQuery = await driveGet(`/drive/v3/files?pageSize=2&q=trashed%20%3D%20false&pageToken=${first.nextPageToken}`, access_token)
    expect(otherQuery.status).toBe(400)
  })

  test('a gate holds API answers until it opens; failApi answers every call with its status', async () => {
    const { access_token } = await tokens()
    let open = () => {}
    fake.gateApi(new Promise<void>((resolve) => (open = resolve)))
    let answered = false
    const pending = driveGet('/drive/v3/about?fields=user', access_token).then((res) => ((answered = true), res))
    await Bun.sleep(50)
    expect(answered).toBe(false)
    open()
    expect((await pending).status).toBe(200)
    fake.gateApi(null)
    fake.failApi(503)
    const failed = await driveGet('/drive/v3/about?fields=user', access_token)
    expect(failed.status).toBe(503)
    expect(((await failed.json()) as DriveErrorBody).error.code).toBe(503)
    fake.failApi(null)
    expect((await driveGet('/drive/v3/about?fields=user', access_token)).status).toBe(200)
  })
})
