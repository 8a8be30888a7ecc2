// bun run bench:connectors [--docs N] [--delay-ms MS] [--delay-docs M] — connector sync cost per provider (Confluence,
// Google Drive, Notion) against the local fakes: a workspace of N SciFact-built documents connected through the real
// OAuth flow, then the first full sync, an unchanged re-sync and a re-sync after 10% of the items were edited upstream;
// then the same with MS added to every provider API request, on M documents (the delay costs MS per request, linearly).
import type { PGlite } from '@electric-sql/pglite'
import { loadavg } from 'node:os'
import { parseArgs } from 'node:util'
import { sql } from 'drizzle-orm'
import { createDb, queryRows } from '../../db/client'
import { loadConfig } from '../../src/config'
import { createDeps } from '../../src/create-deps'
import { drainJobs } from '../../src/jobs/worker'
import { confluenceCase } from '../connectors/cases/confluence.case'
import { googleDriveCase } from '../connectors/cases/google-drive.case'
import { notionCase } from '../connectors/cases/notion.case'
import { startConfluenceFake, type ConfluenceFake } from '../fakes/confluence'
import { DOC, startGoogleDriveFake, type FakeGoogleDrive } from '../fakes/google-drive'
import { block, startNotionFake, type BlockSpec, type NotionFake } from '../fakes/notion'
import { BASE, createTestApp, migratedTemplate, type TestApp } from '../harness'
import { loadScifact } from './scifact'

const { values: args } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    docs: { type: 'string', default: '1000' },
    'delay-ms': { type: 'string', default: '20' },
    'delay-docs': { type: 'string', default: '300' },
  },
})
const N = Number(args.docs)
const DELAY_MS = Number(args['delay-ms'])
/** The delayed pass is smaller so a run stays within a few minutes (0 skips it). */
const DELAY_DOCS = Math.min(N, Number(args['delay-docs']))
for (const n of [N, DELAY_MS, DELAY_DOCS])
  if (!Number.isInteger(n) || n < 0) throw new Error('--docs, --delay-ms and --delay-docs take whole numbers')
if (N < 10) throw new Error('--docs must be at least 10')
const CALLBACK = `${BASE}/api/connectors/oauth/callback`
/** Every 50th item is not importable (an image-only page, a PDF, a trashed page): realistic noise, never fetched twice. */
const EXTRA_EVERY = 50

// ---- Document text: two SciFact abstracts per document (~3 KB), cut into sections and paragraphs. ----
const corpus = loadScifact().corpus
interface Article {
  title: string
  sections: { heading: string; paragraphs: string[] }[]
}
const sentences = (text: string) =>
  text
    .match(/[^.!?]+[.!?]+(\s|$)|[^.!?]+$/g)
    ?.map((s) => s.trim())
    .filter(Boolean) ?? [text]
const paragraphsOf = (text: string) => {
  const s = sentences(text)
  return Array.from({ length: Math.ceil(s.length / 3) }, (_, k) => s.slice(3 * k, 3 * k + 3).join(' '))
}
function article(i: number, revision = 0): Article {
  const a = corpus[(2 * i) % corpus.length]!
  const b = corpus[(2 * i + 1) % corpus.length]!
  const copy = Math.floor((2 * i) / corpus.length) // past 2,591 documents the abstracts repeat: keep titles distinct
  const first = paragraphsOf(a.text)
  // An edit rewrites the opening paragraph, as a person revising a page would.
  if (revision) first[0] = `Revision ${revision}: ${sentences(corpus[(7919 * (i + 1)) % corpus.length]!.text)[0]} ${first[0]}`
  return {
    title: `${a.title.trim().replace(/\.$/, '').slice(0, 140)}${copy ? ` (${copy + 1})` : ''}`,
    sections: [
      { heading: 'Summary', paragraphs: first },
      { heading: b.title.trim().replace(/\.$/, '').slice(0, 140), paragraphs: paragraphsOf(b.text) },
    ],
  }
}
const plain = (a: Article) => a.sections.map((s) => `${s.heading}\n\n${s.paragraphs.join('\n\n')}`).join('\n\n')

// ---- One workspace per provider, as its fake's scripting API builds it. ----
interface Workspace {
  config?: Record<string, string[]>
  shape: string
  upstreamBytes: number
  edit(i: number): void
}
interface Provider<F> {
  label: string
  type: 'confluence' | 'google_drive' | 'notion'
  start(): F
  seed(fake: F, n: number): Workspace
  isContentRequest(r: { method: string; path: string; query: Record<string, string> }): boolean
}

const esc = Bun.escapeHTML
function storage(a: Article, i: number): string {
  let html = a.sections.map((s) => `<h2>${esc(s.heading)}</h2>${s.paragraphs.map((p) => `<p>${esc(p)}</p>`).join('')}`).join('')
  if (i % 5 === 0)
    html += `<table><tbody><tr><th>Owner</th><th>Status</th></tr><tr><td>team ${i % 7}</td><td>reviewed</td></tr></tbody></table>`
  if (i % 7 === 0)
    html += `<ac:structured-macro ac:name="code"><ac:parameter ac:name="language">sh</ac:parameter><ac:plain-text-body><![CDATA[make bench DOC=${i}]]></ac:plain-text-body></ac:structured-macro>`
  return html
}

const confluence: Provider<ConfluenceFake> = {
  label: 'Confluence',
  type: 'confluence',
  start: () => startConfluenceFake({ callbackUrl: CALLBACK }),
  seed(fake, n) {
    const spaces = ['ENG', 'PROD', 'OPS', 'RES', 'PEOPLE']
    for (const key of spaces) fake.addSpace({ key })
    const ids: string[] = []
    let bytes = 0
    for (let i = 0; i < n; i++) {
      const space = spaces[i % spaces.length]!
      const body = storage(article(i), i)
      bytes += Buffer.byteLength(body)
      // Half the pages sit under an earlier page of their space: a page tree, not a flat list.
      ids.push(
        fake.addPage(space, { title: article(i).title, body, parentId: i >= 10 && i % 2 ? ids[i - spaces.length * 2] : undefined }).id,
      )
      if (i % EXTRA_EVERY === 0) {
        fake.addPage(space, { title: `Diagram ${i}`, body: '<ac:image><ri:attachment ri:filename="arch.png" /></ac:image>' })
        fake.addPage(space, { title: `Old plan ${i}`, body: '<p>archived</p>', status: 'archived' })
      }
    }
    const extras = Math.ceil(n / EXTRA_EVERY)
    return {
      shape: `${spaces.length} spaces, half the pages nested, storage XHTML (tables, code macros); +${extras} image-only pages (skipped) and ${extras} archived (not listed); REST v2 pages of 250`,
      upstreamBytes: bytes / n,
      edit: (i) => void fake.editPage(ids[i]!, { body: storage(article(i, 1), i) }),
    }
  },
  isContentRequest: confluenceCase.isContentRequest,
}

function driveFile(a: Article, i: number): { mimeType: string; name: string; content: string } {
  if (i % 10 < 6) return { mimeType: DOC, name: a.title, content: `${a.title}\n\n${plain(a)}` }
  const slug = a.title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, 60)
  if (i % 10 < 9)
    return {
      mimeType: 'text/markdown',
      name: `${slug}.md`,
      content: `# ${a.title}\n\n${a.sections.map((s) => `## ${s.heading}\n\n${s.paragraphs.join('\n\n')}`).join('\n\n')}\n`,
    }
  return { mimeType: 'text/plain', name: `${slug}.txt`, content: `${a.title}\n\n${plain(a)}\n` }
}

const googleDrive: Provider<FakeGoogleDrive> = {
  label: 'Google Drive',
  type: 'google_drive',
  start: () => startGoogleDriveFake({ callbackUrl: CALLBACK }),
  seed(fake, n) {
    fake.addFile({ name: 'personal notes.txt', content: 'outside the selection' })
    const company = fake.addFolder('Company')
    const folders = ['Engineering', 'Product', 'Operations', 'Research', 'Sales', 'Legal', 'People', 'Finance'].flatMap((team) => {
      const top = fake.addFolder(team, [company.id])
      return [top, ...['Specs', 'Notes', 'Archive'].map((sub) => fake.addFolder(sub, [top.id]))]
    })
    const ids: string[] = []
    let bytes = 0
    for (let i = 0; i < n; i++) {
      const file = driveFile(article(i), i)
      bytes += Buffer.byteLength(file.content)
      const parent = folders[i % folders.length]!
      ids.push(fake.addFile({ ...file, parents: [parent.id] }).id)
      if (i % EXTRA_EVERY === 0) fake.addFile({ name: `scan-${i}.pdf`, mimeType: 'application/pdf', size: 250_000, parents: [parent.id] })
    }
    return {
      config: { folders: [company.id] },
      shape: `selection: 1 folder with ${folders.length} subfolders below it; 60% Google Docs (exported), 30% Markdown, 10% text; +${Math.ceil(n / EXTRA_EVERY)} PDFs (listed, skipped)`,
      upstreamBytes: bytes / n,
      edit: (i) => void fake.editFile(ids[i]!, { content: driveFile(article(i, 1), i).content }),
    }
  },
  isContentRequest: googleDriveCase.isContentRequest,
}

function notionBlocks(a: Article, i: number): BlockSpec[] {
  const out: BlockSpec[] = []
  for (const [k, s] of a.sections.entries()) {
    out.push(block('heading_2', s.heading))
    const [head, ...rest] = s.paragraphs
    out.push(block('paragraph', head ?? ''))
    // Every fifth page folds its second section into a toggle: one more request to read its children.
    if (k === 1 && i % 5 === 0) out.push(block('toggle', 'Details', { children: rest.map((p) => block('paragraph', p)) }))
    else out.push(...rest.map((p, j) => (j % 3 === 2 ? block('bulleted_list_item', p) : block('paragraph', p))))
  }
  return out
}

const notion: Provider<NotionFake> = {
  label: 'Notion',
  type: 'notion',
  start: () => startNotionFake({ callbackUrl: CALLBACK, workspaceName: 'Bench Notion' }),
  seed(fake, n) {
    const ids: string[] = []
    const roots: string[] = []
    let papers = ''
    let bytes = 0
    let trashed = 0
    for (let i = 0; i < n; i++) {
      const a = article(i)
      const blocks = notionBlocks(a, i)
      bytes += blocks.reduce((sum, b) => sum + Buffer.byteLength(JSON.stringify(b)), 0)
      let id: string
      if (i < 4) id = fake.addPage({ title: a.title, blocks })
      else if (i % 4 === 0)
        id = fake.addPage({
          title: a.title,
          parent: papers,
          blocks,
          titleProperty: 'Name',
          properties: { Status: { type: 'select', select: { name: i % 8 ? 'Reviewed' : 'Draft', color: 'green' } } },
        })
      else id = fake.addPage({ title: a.title, parent: i % 3 ? roots[i % roots.length] : ids[i - 8], blocks })
      if (i < 4) roots.push(id)
      if (i === 3) papers = fake.addDatabase({ title: 'Papers', parent: roots[3] })
      ids.push(id)
      if (i % EXTRA_EVERY === 0 && i >= 4) {
        fake.trashPage(fake.addPage({ title: `Old notes ${i}`, parent: roots[i % 4], blocks: [block('paragraph', 'stale')] }))
        trashed++
      }
    }
    return {
      shape: `4 top-level pages, a database holding a quarter of the pages, the rest nested; headings, paragraphs, lists, a toggle on every fifth page; +${trashed} trashed pages (listed by search, left out)`,
      upstreamBytes: bytes / n,
      edit: (i) => fake.editPage(ids[i]!, { blocks: notionBlocks(article(i, 1), i) }),
    }
  },
  isContentRequest: notionCase.isContentRequest,
}

// ---- Measuring. ----
/** Time spent waiting on the provider: every fetch of the service, from the call to the response headers. */
const waited = { ms: 0 }
const realFetch = globalThis.fetch
globalThis.fetch = Object.assign(async (...a: Parameters<typeof fetch>) => {
  const t0 = performance.now()
  try {
    return await realFetch(...a)
  } finally {
    waited.ms += performance.now() - t0
  }
}, realFetch) as typeof fetch

interface Row {
  label: string
  wall: number
  run: number
  added: number
  updated: number
  removed: number
  skipped: number
  listing: number
  content: number
  token: number
  wait: number
}
type Fake = ConfluenceFake | FakeGoogleDrive | NotionFake

/** A per-request delay without editing the fakes: each API request awaits their gate, and a thenable gate starts a fresh timer per await. */
// biome-ignore lint/suspicious/noThenProperty: a thenable on purpose (see above).
const delayGate = (ms: number) => ({ then: (resolve: () => void) => setTimeout(resolve, ms) }) as unknown as Promise<void>

async function openService(env: Record<string, string>): Promise<TestApp> {
  const config = loadConfig({
    DATA_DIR: 'memory://',
    LOG_LEVEL: 'silent',
    BASE_URL: BASE,
    EMBEDDING_PROVIDER: 'none',
    WORKER_IN_PROCESS: 'false',
    DEFAULT_PLAN: 'pro',
    PLAN_PRO_DOCUMENTS: '10000000',
    PLAN_PRO_STORAGE_BYTES: String(1e12),
    ...env,
  })
  // The system clock (createTestApp's default is a fake one), so the run's started_at/finished_at are real times.
  const database = await createDb(config, { pglite: (await (await migratedTemplate()).clone()) as PGlite })
  return createTestApp({ deps: await createDeps(config, { database }) })
}

async function bench<F extends Fake>(p: Provider<F>, n: number, delayMs: number) {
  const fake = p.start()
  const t = await openService(fake.env)
  if (delayMs) fake.gateApi(delayGate(delayMs))
  try {
    const ws = p.seed(fake, n)
    const user = await t.signUp()
    const created = await t.json('POST', '/api/connectors', {
      key: user.key,
      body: { type: p.type, ...(ws.config ? { config: ws.config } : {}) },
    })
    if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`)
    const id = created.body.connector.id as string
    // The browser's part: the consent page (the fake consents at once), then the OAuth return, which queues the first sync.
    const atProvider = await realFetch(created.body.authorization_url, { redirect: 'manual' })
    const back = await t.app.handle(new Request(atProvider.headers.get('location')!, { headers: { cookie: user.cookie } }))
    if (back.status !== 200) throw new Error(`OAuth return: ${back.status} ${await back.text()}`)

    const sync = async (label: string): Promise<Row> => {
      const from = fake.requests.length
      waited.ms = 0
      const t0 = performance.now()
      const ran = await drainJobs(t.deps, 'bench', ['sync-connector'])
      const wall = (performance.now() - t0) / 1000
      const run = (await t.json('GET', `/api/connectors/${id}`, { key: user.key })).body.last_run
      if (ran !== 1 || run.status !== 'succeeded') throw new Error(`${p.label} ${label}: ${ran} job(s), run ${JSON.stringify(run)}`)
      const reqs = fake.requests.slice(from)
      const token = reqs.filter((r) => /oauth|token|revoke/.test(r.path)).length
      const content = reqs.filter(p.isContentRequest).length
      const runSeconds = (Date.parse(run.finished_at) - Date.parse(run.started_at)) / 1000
      return { label, wall, run: runSeconds, ...pick(run), listing: reqs.length - token - content, content, token, wait: waited.ms / 1000 }
    }
    const requeue = async () => {
      const res = await t.json('POST', `/api/connectors/${id}/sync`, { key: user.key })
      if (res.status !== 202) throw new Error(`sync: ${res.status} ${JSON.stringify(res.body)}`)
    }

    const rows = [await sync('first full sync')]
    const [stored] = await queryRows<{ docs: number; bytes: number }>(
      t.deps.db,
      sql`select count(*)::int as docs, avg(octet_length(body))::float8 as bytes from documents where source_ref = ${id}`,
    )
    await requeue()
    rows.push(await sync('unchanged re-sync'))
    const edited = Array.from({ length: n }, (_, i) => i).filter((i) => i % 10 === 3)
    for (const i of edited) ws.edit(i)
    await requeue()
    rows.push(await sync(`${edited.length} edited (10%)`))
    if (rows[0]!.added !== n || rows[1]!.added + rows[1]!.updated + rows[1]!.removed !== 0 || rows[2]!.updated !== edited.length)
      throw new Error(`${p.label}: unexpected counts ${JSON.stringify(rows)}`)
    return { ws, rows, stored: stored! }
  } finally {
    await t.close()
    await fake.stop()
  }
}

const pick = (r: Pick<Row, 'added' | 'updated' | 'removed' | 'skipped'>) => ({
  added: r.added,
  updated: r.updated,
  removed: r.removed,
  skipped: r.skipped,
})
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`
const pad = (s: string | number, n: number) => String(s).padStart(n)

function print(p: Provider<any>, delayMs: number, { ws, rows, stored }: Awaited<ReturnType<typeof bench>>) {
  console.log(`\n${p.label}${delayMs ? ` — ${delayMs} ms added to every API request` : ''}: ${ws.shape}`)
  console.log(
    `  ${stored.docs} documents imported; upstream body ${kb(ws.upstreamBytes)} avg (provider format), stored text ${kb(stored.bytes)} avg`,
  )
  console.log(
    `  ${'sync'.padEnd(20)}${pad('wall s', 8)}${pad('run s', 8)}${pad('docs/s', 8)}   added upd rem skip   ${'requests: list content token'.padEnd(28)}${pad('provider wait s', 17)}`,
  )
  for (const r of rows) {
    const rate = r.added + r.updated ? ((r.added + r.updated) / r.run).toFixed(0) : '–'
    console.log(
      `  ${r.label.padEnd(20)}${pad(r.wall.toFixed(2), 8)}${pad(r.run.toFixed(2), 8)}${pad(rate, 8)}   ${pad(r.added, 5)}${pad(r.updated, 4)}${pad(r.removed, 4)}${pad(r.skipped, 5)}   ` +
        `${pad(r.listing + r.content + r.token, 8)}${pad(r.listing, 6)}${pad(r.content, 8)}${pad(r.token, 6)}${pad(r.wait.toFixed(2), 17)}`,
    )
  }
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')
console.log(
  `bench:connectors — the sync-connector job only (drainJobs(deps, 'bench', ['sync-connector'])); the embed-document jobs each imported ` +
    `document queues are left unrun (EMBEDDING_PROVIDER=none). Bodies: two SciFact abstracts per document. PGlite in memory (one clone of the ` +
    `migrated template per provider), Bun ${Bun.version}, ${navigator.hardwareConcurrency} cores, load average ${load()} at start; fakes on 127.0.0.1 in this process.\n` +
    `wall s: drainJobs (claim → job completed); run s: the run's started_at → finished_at (system clock); docs/s: (added + updated) ÷ run s; ` +
    `requests: every request the fake received during the sync (listing, content fetch, OAuth token); provider wait: fetch → response headers, summed.`,
)
const passes = [{ n: N, delayMs: 0 }, ...(DELAY_MS && DELAY_DOCS ? [{ n: DELAY_DOCS, delayMs: DELAY_MS }] : [])]
for (const { n, delayMs } of passes) {
  console.log(
    `\n=== N=${n} documents per provider, ${delayMs ? `${delayMs} ms added to every provider API request (each fake's gate; OAuth endpoints not delayed)` : 'no added latency'} ===`,
  )
  for (const p of [confluence, googleDrive, notion] as Provider<any>[]) print(p, delayMs, await bench(p, n, delayMs))
}
if (!passes[1]) console.log('\n(no delayed pass: --delay-ms or --delay-docs is 0)')
console.log(`\nload average ${load()} at the end`)
