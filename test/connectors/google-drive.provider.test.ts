// The Google Drive connector against the local fake Drive through createProviderApi: identity, complete paged
// listings of the whole drive or of selected folders, Docs and text files as text, PDFs and Office files read as
// uploads are, skips, retries, token
// refresh and failures; then the fake's own Google OAuth endpoints.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import type { ConnectorConfig, RemoteItem, SyncContext } from '../../src/connectors/provider'
import { createProviderApi, ProviderError, SkipItem, type TokenSource } from '../../src/connectors/provider-api'
import { googleDriveProvider as drive } from '../../src/connectors/providers/google-drive'
import { DOC, type FakeGoogleDrive, startGoogleDriveFake } from '../fakes/google-drive'
import { s256 } from '../fakes/oauth-provider'
import { makeDocx, makePdf } from '../files/fixtures'
import { FILE_LIMITS } from './connectors.fixtures'

const CALLBACK = 'http://127.0.0.1:1/connections/google_drive/callback'
let fake: FakeGoogleDrive

beforeEach(() => {
  fake = startGoogleDriveFake({ callbackUrl: CALLBACK, pageLimit: 2, exportLimitBytes: 4096 })
})
afterEach(() => fake.stop())

const basic = (f: FakeGoogleDrive) => `Basic ${Buffer.from(`${f.clientId}:${f.clientSecret}`).toString('base64')}`
const post = (url: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form),
  })

/** Runs the consent redirect with the provider's scopes and params; returns the callback URL's query. */
async function authorize(extra: Record<string, string> = {}) {
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
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v)
  const res = await fetch(url, { redirect: 'manual' })
  return { res, verifier, callback: res.status === 302 ? new URL(res.headers.get('location')!) : null }
}

async function connect(): Promise<{ access_token: string; refresh_token: string }> {
  const { callback, verifier } = await authorize()
  const res = await post(
    fake.env.GOOGLE_TOKEN_URL!,
    { grant_type: 'authorization_code', code: callback!.searchParams.get('code')!, redirect_uri: CALLBACK, code_verifier: verifier },
    { authorization: basic(fake) },
  )
  expect(res.status).toBe(200)
  return res.json() as Promise<{ access_token: string; refresh_token: string }>
}

/** Like the service's: the stored token, and the refresh grant when the API refuses it. */
function tokenSource(initial: { access_token: string; refresh_token: string }): TokenSource & { refreshes: number } {
  let access = initial.access_token
  const source = {
    refreshes: 0,
    token: async () => access,
    refresh: async () => {
      source.refreshes++
      const res = await post(
        fake.env.GOOGLE_TOKEN_URL!,
        { grant_type: 'refresh_token', refresh_token: initial.refresh_token },
        { authorization: basic(fake) },
      )
      if (!res.ok) return null
      access = ((await res.json()) as { access_token: string }).access_token
      return access
    },
  }
  return source
}

async function setup(config: ConnectorConfig = {}, maxBodyBytes = 1024 * 1024) {
  const tokens = tokenSource(await connect())
  const sleeps: number[] = []
  const api = createProviderApi({ name: 'google_drive', base: fake.env.GOOGLE_API_URL!, tokens, sleep: async (ms) => void sleeps.push(ms) })
  const account = await drive.identify(api, {})
  const ctx: SyncContext = { api, account, config, maxBodyBytes, files: FILE_LIMITS }
  return { ctx, tokens, sleeps, list: () => collect(drive.list(ctx)) }
}

async function collect(items: AsyncIterable<RemoteItem>): Promise<RemoteItem[]> {
  const out: RemoteItem[] = []
  for await (const item of items) out.push(item)
  return out
}
const byTitle = (items: RemoteItem[]) => Object.fromEntries(items.map((i) => [i.title, i]))

/** Eng/ (notes.md, todo.txt, Specs/ (Design doc, Schema.json)), a PDF and a root note, plus trashed things. */
function seedDrive() {
  const eng = fake.addFolder('Eng')
  const specs = fake.addFolder('Specs', [eng.id])
  const files = {
    eng,
    specs,
    notes: fake.addFile({ name: 'notes.md', mimeType: 'text/markdown', content: '# Notes\n\nShip it.', parents: [eng.id] }),
    todo: fake.addFile({ name: 'todo.txt', content: 'buy milk', parents: [eng.id] }),
    design: fake.addFile({
      name: 'Design',
      mimeType: DOC,
      content: 'Design\n\n\n\nThe system has two parts.  \nA and B.',
      parents: [specs.id],
    }),
    schema: fake.addFile({ name: 'Schema.json', mimeType: 'application/json', content: '{"a":1}', parents: [specs.id] }),
    pdf: fake.addFile({ name: 'Scan.pdf', mimeType: 'application/pdf', size: 2000, parents: [fake.rootFolderId] }),
    root: fake.addFile({ name: 'root.txt', content: 'at the root' }),
    binned: fake.addFile({ name: 'binned.txt', content: 'gone', parents: [eng.id] }),
    old: fake.addFolder('Old'),
  }
  fake.trashFile(files.binned.id)
  fake.addFile({ name: 'in-old.txt', content: 'old', parents: [files.old.id] })
  fake.trashFile(files.old.id)
  return files
}

describe('google drive provider', () => {
  test('identify names the Drive user by permission id and email', async () => {
    const { ctx } = await setup()
    expect(ctx.account).toEqual({ externalAccountId: fake.user.permissionId, accountName: fake.user.emailAddress, meta: {} })
    expect(fake.apiRequests()[0]).toMatchObject({ path: '/drive/v3/about', query: { fields: 'user' } })
  })

  test('no selection lists every live file across pages, folders as paths (never as items), binaries skipped', async () => {
    const f = seedDrive()
    const { list } = await setup()
    const items = await list()
    const got = byTitle(items)
    expect(Object.keys(got).sort()).toEqual(['Design', 'Scan.pdf', 'Schema.json', 'notes.md', 'root.txt', 'todo.txt'])
    expect(items.length).toBe(6)
    expect(got.Design).toMatchObject({
      externalId: f.design.id,
      container: 'Eng/Specs',
      version: String(f.design.version),
      url: `https://docs.google.com/document/d/${f.design.id}/edit?usp=drivesdk`,
    })
    expect(got.Design!.skip).toBeUndefined()
    expect(got['notes.md']).toMatchObject({ container: 'Eng', url: `https://drive.google.com/file/d/${f.notes.id}/view?usp=drivesdk` })
    expect(got['root.txt']!.container).toBeUndefined()
    // A PDF is listed: it is read by its bytes when fetched (this one has none, so it is skipped then).
    expect(got['Scan.pdf']!.skip).toBeUndefined()
    const lists = fake.apiRequests().filter((r) => r.path === '/drive/v3/files')
    // 2 files a page: the folders in one page, the 6 live files in three (two of them asked by page token).
    expect(lists.map((r) => [r.query.q, r.query.pageToken !== undefined])).toEqual([
      ["mimeType = 'application/vnd.google-apps.folder' and trashed = false", false],
      ["mimeType != 'application/vnd.google-apps.folder' and trashed = false", false],
      ["mimeType != 'application/vnd.google-apps.folder' and trashed = false", true],
      ["mimeType != 'application/vnd.google-apps.folder' and trashed = false", true],
    ])
    for (const r of lists) expect(r.query.fields).toContain('version')
  })

  test('a selection lists its folders recursively, once per file, without looping on a parent cycle', async () => {
    const f = seedDrive()
    fake.addFile({ name: 'both.txt', content: 'twice', parents: [f.eng.id, f.specs.id] })
    fake.moveFile(f.eng.id, [fake.rootFolderId, f.specs.id]) // Specs is now also Eng's parent
    const { list } = await setup({ folders: [f.eng.id] })
    const items = await list()
    const got = byTitle(items)
    expect(Object.keys(got).sort()).toEqual(['Design', 'Schema.json', 'both.txt', 'notes.md', 'todo.txt'])
    expect(items.length).toBe(5)
    expect(got.Design!.container).toBe('Eng/Specs')
    expect(got['notes.md']!.container).toBe('Eng')
    const queries = fake
      .apiRequests()
      .filter((r) => r.path === '/drive/v3/files')
      .map((r) => r.query.q)
    expect(new Set(queries)).toEqual(
      new Set([`'${f.eng.id}' in parents and trashed = false`, `'${f.specs.id}' in parents and trashed = false`]),
    )
  })

  test('a selected folder that is gone fails the listing; a trashed one lists nothing', async () => {
    const f = seedDrive()
    const missing = await setup({ folders: ['1nope'] })
    const error = await missing.list().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ProviderError)
    expect((error as ProviderError).status).toBe(404)
    expect((error as Error).message).toContain('selection')
    const notFolder = await setup({ folders: [f.todo.id] })
    await expect(notFolder.list()).rejects.toThrow('not a folder')
    const trashed = await setup({ folders: [f.old.id] })
    expect(await trashed.list()).toEqual([])
  })

  test('a Doc is exported as clean text and text files are downloaded', async () => {
    const f = seedDrive()
    const { ctx, list } = await setup()
    const got = byTitle(await list())
    expect(await drive.content(ctx, got.Design!)).toBe('Design\n\nThe system has two parts.\nA and B.')
    expect(await drive.content(ctx, got['notes.md']!)).toBe('# Notes\n\nShip it.')
    expect(await drive.content(ctx, got['Schema.json']!)).toBe('{"a":1}')
    expect(fake.apiRequests().find((r) => r.path === `/drive/v3/files/${f.design.id}/export`)?.query.mimeType).toBe('text/plain')
    expect(fake.apiRequests().find((r) => r.path === `/drive/v3/files/${f.notes.id}`)?.query.alt).toBe('media')
    // An item handed back without the listing's extras: its type is read again.
    const bare: RemoteItem = { externalId: f.design.id, title: 'Design', version: '1', url: null }
    expect(await drive.content(ctx, bare)).toBe('Design\n\nThe system has two parts.\nA and B.')
    await expect(drive.content(ctx, { ...bare, externalId: f.pdf.id })).rejects.toBeInstanceOf(SkipItem)
  })

  test('an edit changes the version of that file only; removed and trashed files leave the listing', async () => {
    const f = seedDrive()
    const { list } = await setup()
    const before = byTitle(await list())
    fake.editFile(f.design.id, { content: 'Design v2' })
    fake.deleteFile(f.todo.id)
    fake.trashFile(f.schema.id)
    const after = byTitle(await list())
    expect(after.Design!.version).not.toBe(before.Design!.version)
    expect(after['notes.md']!.version).toBe(before['notes.md']!.version)
    expect(after['todo.txt']).toBeUndefined()
    expect(after['Schema.json']).toBeUndefined()
    fake.deleteFile(f.eng.id) // with everything only below it
    expect(Object.keys(byTitle(await list())).sort()).toEqual(['Scan.pdf', 'root.txt'])
  })

  test('PDFs and Office files are read as an upload is; an unreadable one is skipped with the reason', async () => {
    const folder = fake.addFolder('Reports')
    const pdf = fake.addFile({ name: 'Survey', mimeType: 'application/pdf', content: await makePdf(2), parents: [folder.id] })
    const docx = fake.addFile({
      name: 'Minutes.docx',
      mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      content: await makeDocx(2),
      parents: [folder.id],
    })
    const locked = fake.addFile({
      name: 'Locked.pdf',
      mimeType: 'application/pdf',
      content: await makePdf(1, { password: 'pw' }),
      parents: [folder.id],
    })
    fake.addFile({ name: 'Big.pdf', mimeType: 'application/pdf', size: FILE_LIMITS.maxBytes + 1, parents: [folder.id] })
    const { ctx, list } = await setup({ folders: [folder.id] })
    const got = byTitle(await list())
    expect(got['Big.pdf']!.skip).toBe(`larger than ${FILE_LIMITS.maxBytes} bytes (${FILE_LIMITS.maxBytes + 1} bytes)`)
    // A Drive name without an extension is read by the type Drive gives.
    const survey = await drive.content(ctx, got.Survey!)
    expect(survey).toContain('Line 2 of page 2')
    expect(fake.apiRequests().find((r) => r.path === `/drive/v3/files/${pdf.id}`)?.query.alt).toBe('media')
    const minutes = await drive.content(ctx, got['Minutes.docx']!)
    expect(minutes).toContain('# Chapter 2')
    expect(minutes).toContain('| Region | Revenue |')
    expect(docx.id).toBe(got['Minutes.docx']!.externalId)
    await expect(drive.content(ctx, got['Locked.pdf']!)).rejects.toThrow('encrypted PDF')
    expect(locked.id).toBe(got['Locked.pdf']!.externalId)
  })

  test('files too large or not text are skipped', async () => {
    fake.addFile({ name: 'big.txt', content: 'x'.repeat(300) })
    fake.addFile({ name: 'Long', mimeType: DOC, content: 'y'.repeat(200) })
    fake.addFile({ name: 'Huge', mimeType: DOC, content: 'z'.repeat(5000) })
    fake.addFile({ name: 'fake.txt', content: 'PK\u0003\u0004\u0000\u0000' })
    fake.addFile({ name: 'Budget', mimeType: 'application/vnd.google-apps.spreadsheet' })
    const small = await setup({}, 100)
    const got = byTitle(await small.list())
    expect(got['big.txt']!.skip).toBe('larger than 100 bytes (300 bytes)')
    expect(got.Budget!.skip).toBe('unsupported type application/vnd.google-apps.spreadsheet')
    expect(got.Long!.skip).toBeUndefined() // a Doc's size shows once exported
    await expect(drive.content(small.ctx, got.Long!)).rejects.toBeInstanceOf(SkipItem)
    const full = await setup()
    const items = byTitle(await full.list())
    expect(await drive.content(full.ctx, items.Long!)).toBe('y'.repeat(200))
    await expect(drive.content(full.ctx, items.Huge!)).rejects.toThrow('too large to export') // over Drive's export limit
    await expect(drive.content(full.ctx, items['fake.txt']!)).rejects.toThrow('binary content')
  })

  test('429 is retried after Retry-After', async () => {
    seedDrive()
    const { list, sleeps } = await setup()
    const calls = fake.apiRequests().length
    const clean = (await list()).length
    const pages = fake.apiRequests().length - calls
    fake.rateLimitNext(2, 3)
    expect((await list()).length).toBe(clean)
    expect(sleeps).toEqual([3000, 3000])
    expect(fake.apiRequests().length - calls).toBe(pages * 2 + 2)
  })

  test('an expired token is refreshed once and the listing carries on', async () => {
    seedDrive()
    const { list, tokens } = await setup()
    fake.expireAccessTokens()
    expect((await list()).length).toBe(6)
    expect(tokens.refreshes).toBe(1)
    const refresh = fake.requests.filter((r) => r.path === '/token' && (r.body as Record<string, string>).grant_type === 'refresh_token')
    expect(refresh.length).toBe(1)
  })

  test('an API failure mid-listing throws instead of ending the listing early', async () => {
    seedDrive()
    const { ctx } = await setup()
    const seen: RemoteItem[] = []
    const run = (async () => {
      for await (const item of drive.list(ctx)) {
        seen.push(item)
        if (seen.length === 1) fake.failApi(503)
      }
    })()
    const error = await run.catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ProviderError)
    expect((error as ProviderError).status).toBe(503)
    expect(seen.length).toBeLessThan(8)
  })

  test('an incomplete search fails the listing', async () => {
    seedDrive()
    const { list } = await setup()
    fake.setIncompleteSearch(true)
    await expect(list()).rejects.toThrow('incomplete')
  })
})
