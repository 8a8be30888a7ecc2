// Importing into an account: an Obsidian vault becomes notes with their titles, tags and wikilinks; a bad archive —
// a broken line, a reference to nothing, a `../` name, two entries of one name, a zip bomb, more than the plan
// holds — is refused naming the first bad entry, and nothing of it is written; an API key's import proposes memories.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { strToU8 } from 'fflate'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { exportZip, fillAccount, importZip, lines, zipOf } from './archive.fixtures'

setDefaultTimeout(60_000)

let t: TestApp
let archive: Record<string, Uint8Array>
beforeAll(async () => {
  t = await createTestApp()
  const source = await t.signUp()
  await fillAccount(t, source)
  archive = await exportZip(t, source)
})
afterAll(() => t.close())

/** What the account holds: documents and bytes stored, workspaces, threads, settings. */
async function holdings(u: TestUser) {
  const usage = (await t.json('GET', '/api/usage', { cookie: u.cookie })).body
  const spaces = (await t.json('GET', '/api/workspaces', { cookie: u.cookie })).body.data.length
  const threads = (await t.json('GET', '/api/threads', { cookie: u.cookie })).body.data.length
  const settings = (await t.json('GET', '/api/settings', { cookie: u.cookie })).body
  return { documents: usage.documents.used, bytes: usage.storage_bytes.used, spaces, threads, settings }
}

/** The archive with one entry's text changed. */
const edited = (name: string, change: (text: string) => string) =>
  zipOf({ ...archive, [name]: strToU8(change(new TextDecoder().decode(archive[name]))) })

async function refused(zip: Uint8Array, status = 400) {
  const u = await t.signUp()
  const before = await holdings(u)
  const res = await importZip(t, u, zip)
  expect(res.status).toBe(status)
  expect(await holdings(u)).toEqual(before)
  return res.body.error as string
}

describe('an Obsidian vault', () => {
  test('notes get their front matter title and tags (else the first heading or the file name), folders as tags, wikilinks as links', async () => {
    const u = await t.signUp()
    const vault = zipOf({
      'Vault/Projects/Roadmap.md':
        '---\ntitle: The roadmap\ntags: [planning, "#q3"]\naliases: [Plan]\n---\nShip [[Ideas]] and see [[Areas/Health|my health notes]].\n',
      'Vault/Ideas.md': '# Big ideas\n\nA list of ideas, back to [[Roadmap#Goals]].',
      'Vault/Areas/Health.md': 'Walk daily. ![[chart.png]] [[Missing note]]',
      'Vault/Areas/chart.png': new Uint8Array([137, 80, 78, 71]),
      'Vault/.obsidian/app.json': '{}',
      'Vault/Empty.md': '---\ntitle: Nothing\n---\n',
    })
    const res = await importZip(t, u, vault)
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({
      format: 'obsidian',
      documents: { created: 3, skipped: 0 },
      links: { created: 2, skipped: 0 },
      skipped_entries: 3, // the image, the app's settings, the empty note
    })
    const docs = (await t.json('GET', '/api/documents?limit=10', { cookie: u.cookie })).body.data
    const byTitle = Object.fromEntries(docs.map((d: { title: string; tags: string[] }) => [d.title, d.tags]))
    expect(byTitle).toEqual({ 'The roadmap': ['planning', 'q3', 'Projects'], 'Big ideas': [], Health: ['Areas'] })
    const roadmap = docs.find((d: { title: string }) => d.title === 'The roadmap')
    const linked = (await t.json('GET', `/api/documents/${roadmap.id}/links`, { cookie: u.cookie })).body.data
    expect(linked.map((l: { status: string; document: { title: string } }) => [l.document.title, l.status]).sort()).toEqual([
      ['Big ideas', 'completed'],
      ['Health', 'completed'],
    ])
    // The body is the note without its front matter.
    const full = (await t.json('GET', `/api/documents/${roadmap.id}`, { cookie: u.cookie })).body
    expect(full.body).toBe('Ship [[Ideas]] and see [[Areas/Health|my health notes]].\n')
  })

  test('a note whose front matter is not YAML is a 400 naming it, and nothing is written', async () => {
    const error = await refused(zipOf({ 'a.md': 'fine', 'b.md': '---\ntitle: [unclosed\n---\nbody' }))
    expect(error).toBe('b.md: its front matter is not valid YAML')
  })
})

describe('a bad archive is refused whole, naming the first bad entry', () => {
  test('a line that is not JSON', async () => {
    const error = await refused(edited('documents.jsonl', (s) => s.replace(/\n(.*)\n/, '\n{"id": oops\n')))
    expect(error).toBe('documents.jsonl line 2: is not valid JSON')
  })

  test('a document in a workspace the archive does not hold', async () => {
    const error = await refused(
      edited('documents.jsonl', (s) => {
        const rows = s.split('\n')
        rows[2] = rows[2]!.replace(/"workspace":"[^"]+"/, '"workspace":"nowhere"')
        return rows.join('\n')
      }),
    )
    expect(error).toBe('documents.jsonl line 3: workspace names workspace nowhere the archive does not hold')
  })

  test('a link to a document the archive does not hold', async () => {
    const error = await refused(
      edited('links.jsonl', (s) => s.replace(/"target":"[^"]+"/, '"target":"00000000-0000-7000-8000-000000000000"')),
    )
    expect(error).toBe('links.jsonl line 1: target names document 00000000-0000-7000-8000-000000000000 the archive does not hold')
  })

  test('a field out of its range, and text PostgreSQL cannot store', async () => {
    expect(await refused(edited('documents.jsonl', (s) => s.replace('"status":"active"', '"status":"deleted"')))).toMatch(
      /^documents\.jsonl line \d+: status must be one of active, pending_approval, archived$/,
    )
    expect(await refused(edited('documents.jsonl', (s) => s.replace('"title":"Cooking page"', '"title":"Cook\\u0000ing"')))).toMatch(
      /^documents\.jsonl line \d+: title must be Unicode text without NUL$/,
    )
  })

  test('a manifest that counts more records than the entries hold (a truncated archive)', async () => {
    const error = await refused(edited('documents.jsonl', (s) => s.split('\n').slice(1).join('\n')))
    expect(error).toBe('documents.jsonl: holds 10 records where manifest.json counts 11: the archive is incomplete')
  })

  test('a name that climbs out of the archive, and two entries of one name', async () => {
    expect(await refused(zipOf({ ...archive, '../../etc/passwd.md': 'x' }))).toBe(
      '"../../etc/passwd.md": a "." or ".." segment is not allowed (path traversal)',
    )
    const twice = twoOfOneName(zipOf({ 'a.md': 'one', 'b.md': 'two' }))
    expect(await refused(twice)).toBe('"a.md": the archive holds two entries of this name')
  })

  test('a zip bomb: entries declaring more than the import inflates are refused before any is inflated', async () => {
    const bomb = declareSize(zipOf(archive), 'documents.jsonl', 0xfffffff0)
    expect(await refused(bomb)).toMatch(/^documents\.jsonl: the archive's entries inflate to more than \d+ bytes/)
    // An entry that lies the other way (inflating past what it declares) is cut at its declared size, and then unreadable.
    const liar = declareSize(zipOf(archive), 'documents.jsonl', 100)
    expect(await refused(liar)).toMatch(/^documents\.jsonl line 1: is not valid JSON$/)
  })

  test('not a zip at all, or an empty upload', async () => {
    expect(await refused(strToU8('just text'))).toBe('the file is not a readable zip archive')
    expect(await refused(new Uint8Array(0))).toBe('file: the archive is empty')
  })

  test('an archive past the plan’s document cap is a 402 and writes nothing', async () => {
    const [workspace] = lines(archive['workspaces.jsonl'])
    const at = '2024-01-01T00:00:00.000Z'
    const doc = (i: number) =>
      JSON.stringify({
        id: `d${i}`,
        workspace: workspace.id,
        kind: 'note',
        status: 'active',
        archived_from: null,
        title: `Note ${i}`,
        excerpt: '',
        body: `Note number ${i}`,
        tags: [],
        source: 'api',
        source_ref: null,
        external_id: null,
        url: null,
        metadata: {},
        pinned: false,
        rating: 0,
        occurred_at: at,
        thread: null,
        position: null,
        speaker: null,
        created_at: at,
        updated_at: at,
        file: 'documents/x.md',
        original: null,
      })
    const many = Array.from({ length: 1001 }, (_, i) => doc(i)).join('\n')
    const manifest = {
      format: 'memory-service-archive',
      version: 1,
      exported_at: at,
      counts: { workspaces: 1, threads: 0, documents: 1001, links: 0, originals: 0 },
    }
    const zip = zipOf({
      'manifest.json': JSON.stringify(manifest),
      'workspaces.jsonl': JSON.stringify(workspace),
      'threads.jsonl': '',
      'documents.jsonl': many,
      'links.jsonl': '',
      'settings.json': JSON.stringify({
        default_workspace: null,
        search_mode: 'hybrid',
        answer_style: 'concise',
        remember_conversations: false,
      }),
    })
    expect(await refused(zip, 402)).toMatch(
      /^document limit reached: the free plan allows 1000.*\(this batch adds 1001 documents to the 0 stored; nothing was written\)$/,
    )
  })
})

describe('who imports', () => {
  test('an API key imports active memories as drafts a person approves; a bare application/zip body works too', async () => {
    const v = await t.signUp()
    const bare = await t.app.handle(
      new Request('http://localhost:3000/api/account/import', {
        method: 'POST',
        headers: { authorization: `Bearer ${v.key}`, 'content-type': 'application/zip' },
        body: zipOf(archive),
      }),
    )
    expect(bare.status).toBe(200)
    const body = await bare.json()
    expect(body.memories).toEqual({ created: 4, skipped: 0, drafted: 1 })
    const facts = (await t.json('GET', '/api/memories?kind=fact&status=active', { cookie: v.cookie })).body.data
    expect(facts).toEqual([])
  })

  test('without credentials: 401', async () => {
    expect((await t.request('POST', '/api/account/import', { body: new FormData() })).status).toBe(401)
  })
})

/** The zip with its second entry renamed to its first's name (in the local header and the directory). */
function twoOfOneName(zip: Uint8Array): Uint8Array {
  const out = zip.slice()
  const text = new TextDecoder('latin1').decode(out)
  for (let at = text.indexOf('b.md'); at !== -1; at = text.indexOf('b.md', at + 1)) out[at] = 'a'.charCodeAt(0)
  return out
}

/** The zip with `name`'s uncompressed size in the central directory set to `size`. */
function declareSize(zip: Uint8Array, name: string, size: number): Uint8Array {
  const out = zip.slice()
  const view = new DataView(out.buffer)
  for (let at = 0; at < out.length - 46; at++) {
    if (view.getUint32(at, true) !== 0x02014b50) continue
    const length = view.getUint16(at + 28, true)
    if (new TextDecoder().decode(out.subarray(at + 46, at + 46 + length)) === name) view.setUint32(at + 24, size, true)
  }
  return out
}
