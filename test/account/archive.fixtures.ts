// Helpers of the export and import suites: an account holding every kind of record, the export read back as
// entries, an import sent as a browser sends a file, and an archive's records with their ids replaced by what they
// are, so two exports of one account made in two accounts compare equal.
import { expect } from 'bun:test'
import { drainJobs } from '../../src/jobs/worker'
import { makePdf } from '../files/fixtures'
import { eq } from 'drizzle-orm'
import { strToU8, unzipSync, zipSync } from 'fflate'
import { documents } from '../../db/schema'
import type { TestApp, TestUser } from '../harness'

export async function exportZip(t: TestApp, u: TestUser, auth: 'cookie' | 'key' = 'cookie'): Promise<Record<string, Uint8Array>> {
  const res = await t.request('GET', '/api/account/export', auth === 'cookie' ? { cookie: u.cookie } : { key: u.key })
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toBe('application/zip')
  return unzipSync(new Uint8Array(await res.arrayBuffer()))
}

/** POST /api/account/import with the zip as the multipart field `file`, as the dashboard's file input sends it. */
export async function importZip(t: TestApp, u: TestUser, zip: Uint8Array, auth: 'cookie' | 'key' = 'cookie') {
  const form = new FormData()
  form.append('file', new File([zip as Uint8Array<ArrayBuffer>], 'archive.zip', { type: 'application/zip' }))
  return t.json('POST', '/api/account/import', { ...(auth === 'cookie' ? { cookie: u.cookie } : { key: u.key }), body: form })
}

export const zipOf = (files: Record<string, string | Uint8Array>) =>
  zipSync(Object.fromEntries(Object.entries(files).map(([name, data]) => [name, typeof data === 'string' ? strToU8(data) : data])))

export const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes)
export const lines = (bytes: Uint8Array | undefined) =>
  text(bytes)
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))

async function ok(t: TestApp, method: string, path: string, options: Parameters<TestApp['json']>[2]) {
  const res = await t.json(method, path, options)
  expect({ path, status: res.status < 300, error: res.body?.error }).toEqual({ path, status: true, error: undefined })
  return res.body
}

/**
 * An account with two workspaces, documents (one archived, one pinned and rated), memories active, archived and
 * drafted (one draft citing a thread's messages as evidence and superseding an active memory, one rejected), a thread
 * with three messages, links completed and pending, and its settings changed.
 */
export async function fillAccount(t: TestApp, u: TestUser) {
  const cookie = { cookie: u.cookie }
  const research = await ok(t, 'POST', '/api/workspaces', { ...cookie, body: { name: 'Research', description: 'Papers' } })
  const paper = await ok(t, 'POST', '/api/documents', {
    ...cookie,
    body: { workspace_id: research.id, title: 'Attention paper', body: 'Transformers rely on attention.', tags: ['ml', 'papers'] },
  })
  const page = await ok(t, 'POST', '/api/documents', {
    ...cookie,
    body: { title: 'Cooking page', body: 'Slow roast at 120 degrees.', url: 'https://example.com/roast', metadata: { site: 'example' } },
  })
  await ok(t, 'POST', `/api/documents/${page.id}/rate`, { ...cookie, body: { rating: 1 } })
  await ok(t, 'PATCH', `/api/documents/${page.id}`, { ...cookie, body: { pinned: true } })
  const old = await ok(t, 'POST', '/api/documents', { ...cookie, body: { title: 'Old note', body: 'Something no longer needed.' } })
  await ok(t, 'POST', `/api/documents/${old.id}/archive`, cookie)
  const fact = await ok(t, 'POST', '/api/documents', {
    ...cookie,
    body: { kind: 'fact', title: 'Coffee', body: 'Ada drinks coffee black.', workspace_id: research.id },
  })
  const gone = await ok(t, 'POST', '/api/documents', { ...cookie, body: { kind: 'preference', title: 'Tea', body: 'Ada liked tea.' } })
  await ok(t, 'POST', `/api/documents/${gone.id}/archive`, cookie)
  const thread = await ok(t, 'POST', '/api/threads', {
    ...cookie,
    body: {
      title: 'Morning chat',
      external_id: 'chat-1',
      workspace_id: research.id,
      messages: [
        { content: 'I switched to oat milk in my coffee.', speaker: 'Ada', occurred_at: '2024-03-01T08:00:00Z' },
        { content: 'Since when?', speaker: 'Bob', occurred_at: '2024-03-01T08:01:00Z', client_id: 'm2' },
        { content: 'Since last week.', speaker: 'Ada', occurred_at: '2024-03-01T08:02:00Z' },
      ],
    },
  })
  const messages = thread.results.results.map((r: { document: { id: string } }) => r.document.id)
  const drafts = await ok(t, 'POST', '/api/memories/batch-draft', {
    key: u.key,
    body: {
      workspace_id: research.id,
      learnings: [
        {
          kind: 'fact',
          title: 'Coffee',
          body: 'Ada drinks coffee with oat milk.',
          metadata: { supersedes: fact.id, thread_id: thread.id },
        },
        { kind: 'routine', title: 'Walk', body: 'Ada walks at noon.' },
      ],
    },
  })
  // The evidence a thread's extraction records (it takes a chat model; batch-draft takes no list in metadata).
  await t.deps.db
    .update(documents)
    .set({ metadata: { supersedes: fact.id, thread_id: thread.id, evidence: [messages[0], messages[2]] } })
    .where(eq(documents.id, drafts.data[0].id))
  await ok(t, 'POST', `/api/documents/${drafts.data[1].id}/reject`, cookie)
  await ok(t, 'POST', `/api/documents/${paper.id}/link`, { ...cookie, body: { target_id: fact.id } })
  await ok(t, 'POST', `/api/documents/${page.id}/link`, { ...cookie, body: { target_id: paper.id } })
  await ok(t, 'PATCH', '/api/settings', {
    ...cookie,
    body: { default_workspace_id: research.id, search_mode: 'keyword', answer_style: 'detailed', remember_conversations: true },
  })
  // An uploaded PDF, read: its original and its pages travel with it.
  const form = new FormData()
  form.set('file', new File([(await makePdf(2, { title: 'Tide survey' })) as Uint8Array<ArrayBuffer>], 'tide-survey.pdf'))
  form.set('workspace_id', research.id)
  const upload = await ok(t, 'POST', '/api/documents/files', { ...cookie, body: form })
  await drainJobs(t.deps, 'archive-fixtures', ['extract-file'])
  return { research, paper, page, fact, thread, messages, draft: drafts.data[0], upload }
}

/**
 * The records of an export with every id replaced by what the record is (a workspace by its name, a thread by its
 * title, a document by kind, title and body), sorted: what two exports of the same records share.
 */
export function canonical(files: Record<string, Uint8Array>) {
  const names = new Map<string, string>()
  const workspaces = lines(files['workspaces.jsonl'])
  const threads = lines(files['threads.jsonl'])
  const documents = lines(files['documents.jsonl'])
  for (const w of workspaces) names.set(w.id, `workspace ${w.name}`)
  for (const th of threads) names.set(th.id, `thread ${th.title}`)
  for (const d of documents) names.set(d.id, `${d.kind} ${d.status} ${d.title}: ${d.body}`)
  const name = (id: unknown) => (typeof id === 'string' ? (names.get(id) ?? `unknown ${id}`) : id)
  const meta = (m: Record<string, unknown>) => ({
    ...m,
    ...(m.supersedes !== undefined && { supersedes: name(m.supersedes) }),
    ...(m.thread_id !== undefined && { thread_id: name(m.thread_id) }),
    ...(Array.isArray(m.evidence) && { evidence: m.evidence.map(name) }),
  })
  const sorted = <T>(rows: T[]) => rows.map((r) => JSON.stringify(r)).sort()
  return {
    workspaces: sorted(workspaces.map(({ id, created_at, updated_at, ...w }) => w)),
    threads: sorted(threads.map(({ id, workspace, metadata, ...th }) => ({ ...th, workspace: name(workspace), metadata: meta(metadata) }))),
    documents: sorted(
      documents.map(({ id, workspace, thread, metadata, file, ...d }) => ({
        ...d,
        workspace: name(workspace),
        thread: name(thread),
        metadata: meta(metadata),
      })),
    ),
    links: sorted(lines(files['links.jsonl']).map((l) => ({ ...l, source: name(l.source), target: name(l.target) }))),
    settings: {
      ...JSON.parse(text(files['settings.json'])),
      default_workspace: name(JSON.parse(text(files['settings.json'])).default_workspace),
    },
    // The activity record is the account's own (an import records itself, not the history it came from).
    counts: (({ activity: _, ...counts }) => counts)(JSON.parse(text(files['manifest.json'])).counts),
    markdown: Object.keys(files).filter((n) => n.startsWith('documents/')).length,
    // Each original by the document it belongs to, as its bytes' hash.
    originals: documents
      .filter((d) => d.original)
      .map((d) => `${name(d.id)} ${d.original} ${Bun.hash(files[`files/${d.id}/${d.original}`] ?? new Uint8Array())}`)
      .sort(),
  }
}
