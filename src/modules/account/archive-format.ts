// The account archive's format (docs/export-format.md): entry names, the records each .jsonl line holds, the limits an
// import enforces, and the readable Markdown copy of a document. Export writes these shapes and import reads them.
import type { FileSection } from '../../../db/schema'

/** Bumped when a record changes meaning; an import refuses a format it does not know. */
export const FORMAT_VERSION = 1

export const ENTRY = {
  manifest: 'manifest.json',
  workspaces: 'workspaces.jsonl',
  threads: 'threads.jsonl',
  documents: 'documents.jsonl',
  links: 'links.jsonl',
  settings: 'settings.json',
} as const

/** The account's activity record, newest last: exported to read, never imported (another account's history is not
 * this one's: an import records itself). Not in ENTRY, so archives made before it still import. */
export const ACTIVITY_ENTRY = 'activity.jsonl'

/** The readable copies, one Markdown file a document, ignored by import (documents.jsonl is the record). */
export const MARKDOWN_DIR = 'documents/'
/** Originals beside the records: files/<document id in the archive>/<filename>. */
export const ORIGINALS_DIR = 'files/'

/** Entries an archive may hold (a 100,000-document account's Markdown copies and its originals fit). */
export const MAX_ENTRIES = 250_000
/** What the entries an import reads may inflate to, counted from the zip's directory before any is inflated. */
export const MAX_INFLATED_BYTES = 512 * 1024 * 1024

export interface Manifest {
  format: 'memory-service-archive'
  version: number
  exported_at: string
  counts: Record<'workspaces' | 'threads' | 'documents' | 'links' | 'originals', number> & { activity?: number }
}

export interface ArchiveWorkspace {
  id: string
  name: string
  description: string | null
  created_at: string
  updated_at: string
}

export interface ArchiveThread {
  id: string
  workspace: string
  title: string
  external_id: string | null
  conversation_id: string | null
  metadata: Record<string, unknown>
  extracted_through: number
  extraction: Record<string, unknown> | null
  created_at: string
  updated_at: string
}

/** A document, a memory (a memory kind; its drafts' metadata.supersedes and metadata.evidence name other records) or
 * a thread's message (kind message, with thread, position and speaker). */
export interface ArchiveDocument {
  id: string
  workspace: string
  kind: string
  status: string
  archived_from: string | null
  title: string
  excerpt: string
  body: string
  tags: string[]
  source: string
  source_ref: string | null
  external_id: string | null
  url: string | null
  metadata: Record<string, unknown>
  pinned: boolean
  rating: number
  occurred_at: string
  thread: string | null
  position: number | null
  speaker: string | null
  created_at: string
  updated_at: string
  /** The Markdown copy's entry name. */
  file: string
  /** The original's file name under files/<id>/, or null. */
  original: string | null
  /** An uploaded file's text: where each part of the body was in the file (page, slide, sheet, heading), or null. */
  sections: FileSection[] | null
}

export interface ArchiveLink {
  source: string
  target: string
  score: number
  status: string
  origin: string
  created_at: string
}

export interface ArchiveSettings {
  default_workspace: string | null
  search_mode: string
  answer_style: string
  remember_conversations: boolean
}

/** Metadata fields that name other records of the account: remapped on import (memories.md: supersedes, evidence). */
export const METADATA_REFS = { supersedes: 'one', thread_id: 'one', evidence: 'many', cited: 'many' } as const

/** "Meeting notes: Q3 / plan" → "meeting-notes-q3-plan" (at most 60 characters; "untitled" when nothing is left). */
export function slugify(text: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '')
  return slug || 'untitled'
}

/** The random tail of a UUIDv7 (its head is a time, shared by ids made together): unique enough inside a folder. */
export const shortId = (id: string) => id.replace(/-/g, '').slice(-12)

export const markdownName = (folder: string, title: string, id: string) => `${MARKDOWN_DIR}${folder}/${slugify(title)}-${shortId(id)}.md`

/**
 * The readable copy: YAML front matter (each value written as JSON, which YAML reads as itself) and the body. A
 * vault import of an exported archive's folder reads the title and tags back from it.
 */
export function markdownOf(d: ArchiveDocument, workspaceName: string): string {
  const fields: [string, unknown][] = [
    ['title', d.title],
    ['id', d.id],
    ['kind', d.kind],
    ['status', d.status],
    ['workspace', workspaceName],
    ['tags', d.tags],
    ['url', d.url],
    ['source', d.source],
    ['pinned', d.pinned],
    ['occurred_at', d.occurred_at],
    ['created_at', d.created_at],
    ['updated_at', d.updated_at],
  ]
  if (d.thread) fields.push(['thread', d.thread], ['position', d.position], ['speaker', d.speaker])
  if (d.original) fields.push(['original', `${ORIGINALS_DIR}${d.id}/${d.original}`])
  const front = fields.filter(([, v]) => v !== null).map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
  return `---\n${front.join('\n')}\n---\n\n${d.body}\n`
}
