// An exported archive read back: every entry parsed and every record checked, every reference resolved inside the
// archive (a document's workspace and thread, a link's ends, the settings' default workspace), before anything is
// written. The Markdown copies are not read: documents.jsonl is the record, they are for people.
import { MAX_FILE_TEXT_BYTES } from '../documents/files.service'
import { bodySizeProblem, KINDS, MESSAGE_KIND, metadataSizeProblem, SOURCES, STATUSES } from '../documents/documents.model'
import { badEntry, Fields, jsonLines, textOf } from './archive-fields'
import {
  type ArchiveDocument,
  type ArchiveLink,
  type ArchiveSettings,
  type ArchiveThread,
  type ArchiveWorkspace,
  ENTRY,
  FORMAT_VERSION,
  type Manifest,
  ACTIVITY_ENTRY,
  MARKDOWN_DIR,
  ORIGINALS_DIR,
} from './archive-format'
import type { Original } from './archive-originals'
import { readZip, type ZipEntryInfo } from './archive-zip'

/** What an import writes, whichever kind of zip it came from. A document with a null workspace goes to the default one. */
export interface ImportContent {
  format: 'archive' | 'obsidian'
  workspaces: ArchiveWorkspace[]
  threads: ArchiveThread[]
  documents: (Omit<ArchiveDocument, 'workspace' | 'file'> & { workspace: string | null })[]
  links: (Omit<ArchiveLink, 'created_at'> & { created_at?: string })[]
  settings: ArchiveSettings | null
  originals: Original[]
  /** Entries read past: files a vault holds beside its notes, an archive's unknown ones. */
  skipped_entries: number
}

const LINK_STATUSES = ['pending', 'completed', 'dismissed'] as const
const ORIGINS = ['suggested', 'manual'] as const

export function readArchive(bytes: Uint8Array, entries: ZipEntryInfo[]): ImportContent {
  for (const name of Object.values(ENTRY))
    if (!entries.some((e) => e.name === name)) throw badEntry(name, 'is missing: an exported archive holds it')
  const records = new Set<string>(Object.values(ENTRY))
  const isOriginal = (name: string) => name.startsWith(ORIGINALS_DIR) && !name.endsWith('/')
  const files = readZip(bytes, entries, (name) => records.has(name) || isOriginal(name))
  const text = (name: string) => textOf(name, files.get(name)!)

  const manifest = readManifest(text(ENTRY.manifest))
  const workspaces = [...jsonLines(ENTRY.workspaces, text(ENTRY.workspaces))].map(({ value, where }) =>
    readWorkspace(Fields.of(value, where)),
  )
  const workspaceIds = uniqueIds(workspaces, ENTRY.workspaces)
  counted(manifest, 'workspaces', workspaces.length)
  const threads = [...jsonLines(ENTRY.threads, text(ENTRY.threads))].map(({ value, where }) =>
    readThread(Fields.of(value, where), workspaceIds),
  )
  const threadsById = new Map(threads.map((t) => [t.id, t]))
  uniqueIds(threads, ENTRY.threads)
  counted(manifest, 'threads', threads.length)
  const documents: ImportContent['documents'] = []
  const ids = new Set<string>()
  const places = new Set<string>()
  for (const { value, where } of jsonLines(ENTRY.documents, text(ENTRY.documents))) {
    const d = readDocument(Fields.of(value, where), workspaceIds, threadsById)
    if (ids.has(d.id)) throw badEntry(where, `id ${d.id} is given to an earlier document`)
    const place = `${d.thread}:${d.position}`
    if (d.thread && places.has(place)) throw badEntry(where, `position ${d.position} of thread ${d.thread} is held by an earlier message`)
    ids.add(d.id)
    places.add(place)
    documents.push(d)
  }
  counted(manifest, 'documents', documents.length)
  const links = [...jsonLines(ENTRY.links, text(ENTRY.links))].map(({ value, where }) => readLink(Fields.of(value, where), ids))
  counted(manifest, 'links', links.length)
  const settings = readSettings(Fields.of(parseJson(ENTRY.settings, text(ENTRY.settings)), ENTRY.settings), workspaceIds)
  const originals = readOriginalEntries(files, documents)
  const known = (name: string) =>
    records.has(name) || isOriginal(name) || name === ACTIVITY_ENTRY || name.startsWith(MARKDOWN_DIR) || name.endsWith('/')
  return {
    format: 'archive',
    workspaces,
    threads,
    documents,
    links,
    settings,
    originals,
    skipped_entries: entries.filter((e) => !known(e.name)).length,
  }
}

/** A record count unlike the manifest's: the entry was cut short (or added to) after the export wrote it. */
function counted(manifest: Manifest, kind: 'workspaces' | 'threads' | 'documents' | 'links', n: number) {
  const expected = manifest.counts[kind]
  if (expected !== n)
    throw badEntry(`${kind}.jsonl`, `holds ${n} records where manifest.json counts ${expected}: the archive is incomplete`)
}

function parseJson(name: string, text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    throw badEntry(name, 'is not valid JSON')
  }
}

function readManifest(text: string): Manifest {
  const f = Fields.of(parseJson(ENTRY.manifest, text), ENTRY.manifest)
  f.oneOf('format', ['memory-service-archive'])
  const version = f.int('version', 1, 1_000_000)
  if (version > FORMAT_VERSION) f.fail('version', `${version} is newer than this service reads (${FORMAT_VERSION})`)
  const counts = Fields.of(f.object('counts'), `${ENTRY.manifest} counts`)
  return {
    format: 'memory-service-archive',
    version,
    exported_at: f.time('exported_at'),
    counts: {
      workspaces: counts.int('workspaces', 0, 1e9),
      threads: counts.int('threads', 0, 1e9),
      documents: counts.int('documents', 0, 1e9),
      links: counts.int('links', 0, 1e9),
      originals: counts.int('originals', 0, 1e9),
    },
  }
}

function uniqueIds(rows: { id: string }[], name: string): Set<string> {
  const ids = new Set<string>()
  for (const [i, row] of rows.entries()) {
    if (ids.has(row.id)) throw badEntry(`${name} record ${i + 1}`, `id ${row.id} is given to an earlier record`)
    ids.add(row.id)
  }
  return ids
}

const reference = (f: Fields, field: string, known: { has(id: string): boolean }, what: string) => {
  const id = f.text(field, 100, 1)
  if (!known.has(id)) f.fail(field, `names ${what} ${id} the archive does not hold`)
  return id
}

const readWorkspace = (f: Fields): ArchiveWorkspace => ({
  id: f.text('id', 100, 1),
  name: f.text('name', 200, 1),
  description: f.optionalText('description', 4000),
  created_at: f.time('created_at'),
  updated_at: f.time('updated_at'),
})

const readThread = (f: Fields, workspaces: Set<string>): ArchiveThread => ({
  id: f.text('id', 100, 1),
  workspace: reference(f, 'workspace', workspaces, 'workspace'),
  title: f.text('title', 2000, 1),
  external_id: f.optionalText('external_id', 2048),
  conversation_id: f.optionalText('conversation_id', 100),
  metadata: f.object('metadata')!,
  extracted_through: f.int('extracted_through', -1, 2 ** 31 - 1),
  extraction: f.object('extraction', true),
  created_at: f.time('created_at'),
  updated_at: f.time('updated_at'),
})

function readDocument(f: Fields, workspaces: Set<string>, threads: Map<string, ArchiveThread>): ImportContent['documents'][number] {
  const kind = f.oneOf('kind', [...KINDS, MESSAGE_KIND])
  const workspace = reference(f, 'workspace', workspaces, 'workspace')
  const message = kind === MESSAGE_KIND
  const thread = message ? reference(f, 'thread', threads, 'thread') : f.optionalText('thread', 100)
  if (!message && thread !== null) f.fail('thread', 'is only given to a message')
  if (thread && threads.get(thread)!.workspace !== workspace) f.fail('workspace', `is not the workspace of its thread ${thread}`)
  const body = f.text('body', Number.MAX_SAFE_INTEGER, 1)
  const sections = f.sections('sections', body.length)
  // An uploaded file's text (it has sections) may be longer than a body sent as JSON, as an upload's may.
  const bytes = Buffer.byteLength(body)
  const tooLarge = sections
    ? bytes > MAX_FILE_TEXT_BYTES
      ? `is ${bytes} bytes; a file's text may be at most ${MAX_FILE_TEXT_BYTES}`
      : null
    : bodySizeProblem(bytes)
  if (tooLarge) f.fail('body', tooLarge.replace(/^body /, ''))
  const metadata = f.object('metadata')!
  const metadataProblem = metadataSizeProblem(Buffer.byteLength(JSON.stringify(metadata)))
  if (metadataProblem) f.fail('metadata', metadataProblem.replace(/^metadata /, ''))
  const status = f.oneOf('status', STATUSES)
  return {
    id: f.text('id', 100, 1),
    workspace,
    kind,
    status,
    archived_from: f.optionalText('archived_from', 40) === null ? null : f.oneOf('archived_from', STATUSES),
    title: f.text('title', 2000, 1),
    excerpt: f.text('excerpt', 4000),
    body,
    tags: f.strings('tags', 200, 200),
    source: f.oneOf('source', SOURCES),
    source_ref: f.optionalText('source_ref', 4096),
    external_id: f.optionalText('external_id', 4096),
    url: f.optionalText('url', 4096),
    metadata,
    pinned: f.bool('pinned', false),
    rating: f.int('rating', -1, 1),
    occurred_at: f.time('occurred_at'),
    thread,
    position: message ? f.int('position', 0, 2 ** 31 - 1) : null,
    speaker: message ? f.text('speaker', 200, 1) : null,
    created_at: f.time('created_at'),
    updated_at: f.time('updated_at'),
    original: f.optionalText('original', 255),
    sections,
  }
}

function readLink(f: Fields, documents: Set<string>) {
  const source = reference(f, 'source', documents, 'document')
  const target = reference(f, 'target', documents, 'document')
  if (source === target) f.fail('target', 'is the link’s own source')
  return {
    source,
    target,
    score: f.number('score'),
    status: f.oneOf('status', LINK_STATUSES),
    origin: f.oneOf('origin', ORIGINS),
    created_at: f.time('created_at'),
  }
}

const readSettings = (f: Fields, workspaces: Set<string>): ArchiveSettings => ({
  default_workspace: f.optionalText('default_workspace', 100) === null ? null : reference(f, 'default_workspace', workspaces, 'workspace'),
  search_mode: f.oneOf('search_mode', ['hybrid', 'keyword', 'semantic']),
  answer_style: f.oneOf('answer_style', ['concise', 'detailed']),
  remember_conversations: f.bool('remember_conversations', false),
})

/** files/<document id>/<filename>: each must be the original its document's record names. */
function readOriginalEntries(files: Map<string, Uint8Array>, documents: ImportContent['documents']): Original[] {
  const byId = new Map(documents.map((d) => [d.id, d]))
  const originals: Original[] = []
  for (const [name, bytes] of files) {
    if (!name.startsWith(ORIGINALS_DIR)) continue
    const [id = '', ...rest] = name.slice(ORIGINALS_DIR.length).split('/')
    const filename = rest.join('/')
    const document = byId.get(id)
    if (!document || document.original !== filename) throw badEntry(name, 'is not the original any document of documents.jsonl names')
    originals.push({ document_id: id, filename, content_type: 'application/octet-stream', bytes })
  }
  return originals
}
