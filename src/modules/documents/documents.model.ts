// The document vocabulary (kinds, statuses, sources), size rules, and the row → API mapping.
import type { documents } from '../../../db/schema'
import { badRequest, payloadTooLarge } from '../../http/errors'
import { sha256Hex } from '../../lib/crypto'

export const DOCUMENT_KINDS = ['document', 'note', 'webpage'] as const
/** A thread's message: written through /api/threads, never given as the kind of an ingest. */
export const MESSAGE_KIND = 'message' as const
export const MEMORY_KINDS = ['fact', 'preference', 'decision', 'routine', 'lesson'] as const
export const KINDS = [...DOCUMENT_KINDS, ...MEMORY_KINDS] as const
export const STATUSES = ['active', 'pending_approval', 'archived'] as const
export const SOURCES = ['api', 'extension', 'connector', 'agent', 'mcp'] as const

export type Kind = (typeof KINDS)[number]
export type Status = (typeof STATUSES)[number]
export type DocumentRow = typeof documents.$inferSelect

export const MAX_BODY_BYTES = 1024 * 1024
export const MAX_METADATA_BYTES = 16 * 1024
export const EXCERPT_CHARS = 280

export const isMemoryKind = (kind: string) => (MEMORY_KINDS as readonly string[]).includes(kind)

const bytes = (s: string) => Buffer.byteLength(s, 'utf8')

/** The first ~280 characters of the body, cut at a word boundary. */
export function deriveExcerpt(body: string): string {
  const flat = body.replace(/\s+/g, ' ').trim()
  if (flat.length <= EXCERPT_CHARS) return flat
  const cut = flat.slice(0, EXCERPT_CHARS)
  const space = cut.lastIndexOf(' ')
  return (space > EXCERPT_CHARS * 0.6 ? cut.slice(0, space) : cut) + '…'
}

export function deriveTitle(body: string, url: string | null): string {
  const line = body
    .split('\n')
    .map((l) => l.trim())
    .find(Boolean)
  if (line) return line.length > 120 ? line.slice(0, 117) + '…' : line
  return url ?? 'Untitled'
}

/** Trimmed, de-duplicated, empty ones dropped (the schema already bounds count and length). */
export const normalizeTags = (tags: string[] | undefined) => [...new Set((tags ?? []).map((t) => t.trim()).filter(Boolean))]

export const contentHash = (body: string) => sha256Hex(body)

/** Why a body of `n` bytes is refused (413), or null: one text for ingest and for GET /check. */
export const bodySizeProblem = (n: number, field = 'body') =>
  n > MAX_BODY_BYTES ? `${field} is ${n} bytes of UTF-8; a document body may be at most ${MAX_BODY_BYTES} (1 MiB)` : null

export function assertBodySize(body: string, field = 'body'): void {
  const problem = bodySizeProblem(bytes(body), field)
  if (problem) throw payloadTooLarge(problem)
}

/** Why metadata of `n` bytes of JSON is refused (400), or null: one text for ingest and for GET /check. */
export const metadataSizeProblem = (n: number, field = 'metadata') =>
  n > MAX_METADATA_BYTES ? `${field} is ${n} bytes of JSON; at most ${MAX_METADATA_BYTES} (16 KiB) are allowed` : null

export function assertMetadataSize(metadata: Record<string, unknown> | undefined, field = 'metadata'): void {
  if (metadata === undefined) return
  const problem = metadataSizeProblem(bytes(JSON.stringify(metadata)), field)
  if (problem) throw badRequest(problem)
}

/** What a document costs against the storage limit. */
export const sizeOf = (d: { title: string; excerpt: string; body: string; metadata?: Record<string, unknown> }) =>
  bytes(d.title) + bytes(d.excerpt) + bytes(d.body) + (d.metadata ? bytes(JSON.stringify(d.metadata)) : 0)

export type SummaryRow = Omit<DocumentRow, 'body' | 'metadata'>

export function toSummaryDto(row: SummaryRow) {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    title: row.title,
    excerpt: row.excerpt,
    tags: row.tags,
    kind: row.kind,
    status: row.status,
    source: row.source,
    source_ref: row.source_ref,
    url: row.url,
    pinned: row.pinned,
    rating: row.rating,
    index_status: row.index_status,
    size_bytes: row.size_bytes,
    occurred_at: row.occurred_at.toISOString(),
    thread_id: row.thread_id,
    position: row.position,
    speaker: row.speaker,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  }
}

export const toDocumentDto = (row: DocumentRow) => ({ ...toSummaryDto(row), body: row.body, metadata: row.metadata })
export type DocumentDto = ReturnType<typeof toDocumentDto>
