// GET /api/account/export: the whole account as one zip (docs/export-format.md), streamed as the client reads it.
// Every table is read in pages by key (never the account whole), each page written and let out before the next is
// read; what was created after the export started is left out, so the manifest's counts are what the entries hold.
import { and, asc, eq, gt, lte, sql, type SQL } from 'drizzle-orm'
import { activity, documents, links, settings, threads, workspaces } from '../../../db/schema'
import type { Deps } from '../../deps'
import { toActivityDto, type ActivityRow } from '../activity/activity.model'
import type { SessionUser } from '../auth/session-user'
import {
  ACTIVITY_ENTRY,
  type ArchiveDocument,
  type ArchiveSettings,
  type ArchiveThread,
  type ArchiveWorkspace,
  ENTRY,
  FORMAT_VERSION,
  type Manifest,
  markdownName,
  markdownOf,
  ORIGINALS_DIR,
  shortId,
  slugify,
} from './archive-format'
import { readOriginals } from './archive-originals'
import { type ZipWriter, zipStream } from './archive-zip'

export interface ExportOptions {
  /** Documents read a query (the bench and a test choose smaller or larger). */
  pageSize?: number
  /** Called after each page read: a test counts pages read against bytes taken by the client. */
  onPage?: (table: string, rows: number) => void
}

const DEFAULT_PAGE = 250

/** The archive as a stream, and the file name the download gets. */
export function exportAccount(deps: Deps, user: SessionUser, options: ExportOptions = {}) {
  const startedAt = deps.clock.now()
  const stamp = startedAt.toISOString().slice(0, 19).replace(/[:T]/g, '-')
  const stream = zipStream(
    (zip) => writeArchive(deps, user, zip, startedAt, options),
    (error) => deps.log.error('account export failed', { user_id: user.id, error: String(error) }),
  )
  return { stream, filename: `memory-export-${stamp}.zip` }
}

type DocumentRow = typeof documents.$inferSelect

async function* writeArchive(deps: Deps, user: SessionUser, zip: ZipWriter, startedAt: Date, options: ExportOptions) {
  const pageSize = options.pageSize ?? DEFAULT_PAGE
  const onPage = options.onPage ?? (() => {})
  const counts: Manifest['counts'] = { workspaces: 0, threads: 0, documents: 0, links: 0, originals: 0 }
  const before = <T extends { created_at: Date }>(rows: T[]) => rows.filter((r) => r.created_at <= startedAt)

  // Workspaces are few (a plan caps them): their folder names are kept for the Markdown copies.
  const folders = new Map<string, { folder: string; name: string }>()
  const spaces = zip.open(ENTRY.workspaces)
  for await (const page of pagesById(deps, workspaces, eq(workspaces.user_id, user.id), 500, onPage)) {
    for (const w of before(page)) {
      let folder = slugify(w.name)
      if ([...folders.values()].some((f) => f.folder === folder)) folder = `${folder}-${shortId(w.id)}`
      folders.set(w.id, { folder, name: w.name })
      spaces.write(line(toWorkspace(w)))
      counts.workspaces++
    }
    yield
  }
  spaces.close()

  const threadLines = zip.open(ENTRY.threads)
  for await (const page of pagesById(deps, threads, eq(threads.user_id, user.id), 500, onPage)) {
    for (const row of before(page)) threadLines.write(line(toThread(row)))
    counts.threads += before(page).length
    yield
  }
  threadLines.close()

  const [stored] = await deps.db.select().from(settings).where(eq(settings.user_id, user.id))
  zip.file(ENTRY.settings, `${JSON.stringify(toSettings(stored), null, 2)}\n`)

  const docLines = zip.open(ENTRY.documents)
  for await (const page of documentPages(deps, user, pageSize, onPage)) {
    const rows = before(page)
    const originals = new Map(
      (
        await readOriginals(
          deps.db,
          user.id,
          rows.map((r) => r.id),
        )
      ).map((o) => [o.document_id, o]),
    )
    for (const row of rows) docLines.write(line(toDocument(row, folders.get(row.workspace_id)!.folder, originals.get(row.id)?.filename)))
    counts.documents += rows.length
    yield
  }
  docLines.close()

  // Links by their source document, a page of document ids at a time (links_source_idx): each link once.
  const linkLines = zip.open(ENTRY.links)
  for await (const page of documentPages(deps, user, pageSize * 4, onPage, true)) {
    const ids = page.map((d) => d.id)
    if (ids.length === 0) continue
    const rows = await deps.db
      .select()
      .from(links)
      .where(and(eq(links.user_id, user.id), sql`${links.source_id} = any(${pgArray(ids)})`, lte(links.created_at, startedAt)))
      .orderBy(asc(links.id))
    for (const l of rows) linkLines.write(line(toLink(l)))
    counts.links += rows.length
    yield
  }
  linkLines.close()

  // The readable copies, and the originals beside them (the originals step: archive-originals.ts).
  for await (const page of documentPages(deps, user, pageSize, onPage)) {
    const rows = before(page)
    const originals = await readOriginals(
      deps.db,
      user.id,
      rows.map((r) => r.id),
    )
    const byId = new Map(originals.map((o) => [o.document_id, o]))
    for (const row of rows) {
      const { folder, name } = folders.get(row.workspace_id)!
      const record = toDocument(row, folder, byId.get(row.id)?.filename)
      zip.file(record.file, markdownOf(record, name))
    }
    for (const o of originals) zip.file(`${ORIGINALS_DIR}${o.document_id}/${o.filename}`, o.bytes, false)
    counts.originals += originals.length
    yield
  }

  // The activity record, oldest first: what happened to all of the above, and who did it.
  const activityLines = zip.open(ACTIVITY_ENTRY)
  counts.activity = 0
  for (let after: string | null = null; ; ) {
    const rows: ActivityRow[] = await deps.db
      .select()
      .from(activity)
      .where(and(eq(activity.user_id, user.id), lte(activity.at, startedAt), after ? gt(activity.id, after) : undefined))
      .orderBy(asc(activity.id))
      .limit(pageSize * 4)
    onPage('activity', rows.length)
    if (rows.length === 0) break
    for (const row of rows) activityLines.write(line(toActivityDto(row)))
    counts.activity += rows.length
    after = rows.at(-1)!.id
    yield
  }
  activityLines.close()

  const manifest: Manifest = { format: 'memory-service-archive', version: FORMAT_VERSION, exported_at: startedAt.toISOString(), counts }
  zip.file(ENTRY.manifest, `${JSON.stringify(manifest, null, 2)}\n`)
}

const line = (record: unknown) => `${JSON.stringify(record)}\n`
const pgArray = (ids: string[]) => sql`array(select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)::uuid)`

/** Pages of a small table by id (workspaces, threads). */
async function* pagesById<T extends typeof workspaces | typeof threads>(
  deps: Deps,
  table: T,
  mine: SQL,
  size: number,
  onPage: NonNullable<ExportOptions['onPage']>,
) {
  let after: string | null = null
  for (;;) {
    const rows: T['$inferSelect'][] = await deps.db
      .select()
      .from(table as typeof workspaces)
      .where(and(mine, after ? gt(table.id, after) : undefined))
      .orderBy(asc(table.id))
      .limit(size)
    onPage(table === workspaces ? 'workspaces' : 'threads', rows.length)
    if (rows.length === 0) return
    yield rows
    after = rows.at(-1)!.id
  }
}

/** The user's documents by (status, id), the key of documents_user_status_idx; `idsOnly` reads just the ids. */
async function* documentPages(
  deps: Deps,
  user: SessionUser,
  size: number,
  onPage: NonNullable<ExportOptions['onPage']>,
  idsOnly = false,
): AsyncGenerator<DocumentRow[]> {
  let after: { status: string; id: string } | null = null
  for (;;) {
    // A row comparison, so the index answers it as a range (an OR of the two conditions would sort every page).
    const where = and(
      eq(documents.user_id, user.id),
      after ? sql`(${documents.status}, ${documents.id}) > (${after.status}, ${after.id}::uuid)` : undefined,
    )
    const query = idsOnly
      ? deps.db.select({ id: documents.id, status: documents.status, created_at: documents.created_at }).from(documents)
      : deps.db.select().from(documents)
    const rows = (await query.where(where).orderBy(asc(documents.status), asc(documents.id)).limit(size)) as DocumentRow[]
    onPage('documents', rows.length)
    if (rows.length === 0) return
    yield rows
    const last = rows.at(-1)!
    after = { status: last.status, id: last.id }
  }
}

const toWorkspace = (w: typeof workspaces.$inferSelect): ArchiveWorkspace => ({
  id: w.id,
  name: w.name,
  description: w.description,
  created_at: w.created_at.toISOString(),
  updated_at: w.updated_at.toISOString(),
})

const toThread = (t: typeof threads.$inferSelect): ArchiveThread => ({
  id: t.id,
  workspace: t.workspace_id,
  title: t.title,
  external_id: t.external_id,
  conversation_id: t.conversation_id,
  metadata: t.metadata,
  extracted_through: t.extracted_through,
  extraction: t.extraction ?? null,
  created_at: t.created_at.toISOString(),
  updated_at: t.updated_at.toISOString(),
})

function toDocument(d: DocumentRow, folder: string, original: string | undefined): ArchiveDocument {
  return {
    id: d.id,
    workspace: d.workspace_id,
    kind: d.kind,
    status: d.status,
    archived_from: d.archived_from,
    title: d.title,
    excerpt: d.excerpt,
    body: d.body,
    tags: d.tags,
    source: d.source,
    source_ref: d.source_ref,
    external_id: d.external_id,
    url: d.url,
    metadata: d.metadata,
    pinned: d.pinned,
    rating: d.rating,
    occurred_at: d.occurred_at.toISOString(),
    thread: d.thread_id,
    position: d.position,
    speaker: d.speaker,
    created_at: d.created_at.toISOString(),
    updated_at: d.updated_at.toISOString(),
    file: markdownName(folder, d.title, d.id),
    original: original ?? null,
    sections: d.sections,
  }
}

const toLink = (l: typeof links.$inferSelect) => ({
  source: l.source_id,
  target: l.target_id,
  score: l.score,
  status: l.status,
  origin: l.origin,
  created_at: l.created_at.toISOString(),
})

function toSettings(row: typeof settings.$inferSelect | undefined): ArchiveSettings {
  return {
    default_workspace: row?.default_workspace_id ?? null,
    search_mode: row?.search_mode ?? 'hybrid',
    answer_style: row?.answer_style ?? 'concise',
    remember_conversations: row?.remember_conversations ?? false,
  }
}
