// Files in: an upload keeps the original (document_files) and answers at once with the document `processing`;
// the extract-file job reads the file's text off the request path (src/files/, in a subprocess with limits)
// and the document becomes searchable, or `failed` with the reason. The same file again is the same document;
// a new version (the same file name in the workspace) replaces its text when it has been read.
import { createHash } from 'node:crypto'
import { and, desc, eq, ne } from 'drizzle-orm'
import { documentFiles, documents, type FileSection, users } from '../../../db/schema'
import type { Tx } from '../../../db/client'
import type { Deps } from '../../deps'
import { sniffFormat } from '../../files/file-format'
import { extractFile, type ExtractLimits } from '../../files/extract-file'
import { type Extracted, UnreadableFile } from '../../files/extracted'
import { FORMAT_CONTENT_TYPES } from '../../files/file-format'
import { AppError, badRequest, notFound, paymentRequired, payloadTooLarge } from '../../http/errors'
import { enqueueJob } from '../../queue/job-kinds'
import { accountPlan, exceeds, fileLimits, limitMessage, limitsOf } from '../../plans'
import { indexDocument } from '../../retrieval/indexing'
import { recordActivity } from '../activity/activity.service'
import { actorOf, type SessionUser } from '../auth/session-user'
import { storedTotals } from '../usage/usage.service'
import { resolveWorkspaceId } from '../workspaces/workspaces.service'
import { aboutDocument } from './document-changes'
import { contentHash, deriveExcerpt, normalizeTags, type DocumentRow, sizeOf } from './documents.model'

export type FileRow = typeof documentFiles.$inferSelect

/** The most text a file's document holds (a JSON body holds 1 MiB): a 500-page report reads to ~1.5 MiB. */
export const MAX_FILE_TEXT_BYTES = 4 * 1024 * 1024

export interface UploadInput {
  file: File
  workspace_id?: string
  title?: string
  tags?: string[]
  source: DocumentRow['source']
}

export interface Uploaded {
  document: DocumentRow
  file: FileRow
  /** The same bytes under the same name were already there: nothing changed. */
  deduplicated: boolean
}

/** A file's name as stored and shown: its last path segment, no control characters, at most 255 characters. */
export function fileName(raw: string): string {
  const base = raw.split(/[\\/]/).pop() ?? ''
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, '').trim()
  return (clean || 'upload').slice(0, 255)
}

const titleOf = (name: string) => name.replace(/\.[A-Za-z0-9]{1,5}$/, '') || name

export async function uploadFile(deps: Deps, user: SessionUser, input: UploadInput): Promise<Uploaded> {
  const bytes = new Uint8Array(await input.file.arrayBuffer())
  const name = fileName(input.file.name)
  const limits = limitsOf(deps, user.plan)
  if (bytes.byteLength === 0) throw badRequest(`file ${name} is empty`)
  if (exceeds(bytes.byteLength, limits.file_bytes))
    throw payloadTooLarge(`file ${name} is ${bytes.byteLength} bytes; ${limitMessage(deps, user.plan, 'file_bytes')}`)
  const format = sniffOrRefuse(bytes, name, input.file.type)
  const sha256 = createHash('sha256').update(bytes).digest('hex')
  const workspaceId = await resolveWorkspaceId(deps.db, user.id, input.workspace_id)
  const now = deps.clock.now()
  return deps.db.transaction(async (tx) => {
    const existing = await fileByName(tx, user.id, workspaceId, name)
    if (existing && existing.file.sha256 === sha256) return { ...existing, deduplicated: true }
    const title = input.title?.trim() || existing?.document.title || titleOf(name)
    const tags = normalizeTags([...(existing?.document.tags ?? []), ...(input.tags ?? [])])
    const textBytes = sizeOf({ title, excerpt: '', body: '', metadata: {} })
    // The plan counts a new document, and the storage of the new file in place of the old one.
    const totals = await storedTotals(tx, user.id)
    if (!existing && exceeds(totals.documents + 1, limits.documents)) throw paymentRequired(limitMessage(deps, user.plan, 'documents'))
    const adding = bytes.byteLength - (existing?.file.size_bytes ?? 0) + (existing ? 0 : textBytes)
    if (exceeds(totals.storage_bytes + adding, limits.storage_bytes)) throw paymentRequired(limitMessage(deps, user.plan, 'storage_bytes'))

    const file = {
      name,
      format,
      content_type: FORMAT_CONTENT_TYPES[format],
      size_bytes: bytes.byteLength,
      sha256,
      bytes,
      status: 'processing',
      error: null,
      pages: null,
      updated_at: now,
    }
    let document: DocumentRow | undefined
    let stored: FileRow | undefined
    if (existing) {
      // The text of the version before stays searchable until the new one has been read.
      ;[document] = await tx
        .update(documents)
        .set({ title, tags, index_status: 'processing', updated_at: now, updated_by: actorOf(user) })
        .where(eq(documents.id, existing.document.id))
        .returning()
      ;[stored] = await tx.update(documentFiles).set(file).where(eq(documentFiles.document_id, existing.document.id)).returning()
    } else {
      ;[document] = await tx
        .insert(documents)
        .values({
          id: deps.ids.next(),
          user_id: user.id,
          workspace_id: workspaceId,
          title,
          excerpt: '',
          body: '',
          tags,
          kind: 'document',
          status: 'active',
          source: input.source,
          // A file not read yet holds no text: its hash is the file's, so it is nobody's duplicate.
          content_hash: `file:${sha256}`,
          size_bytes: textBytes,
          index_status: 'processing',
          occurred_at: now,
          created_at: now,
          updated_at: now,
          updated_by: actorOf(user),
        })
        .returning()
      ;[stored] = await tx
        .insert(documentFiles)
        .values({ ...file, document_id: document!.id, user_id: user.id, created_at: now })
        .returning()
    }
    await enqueueJob(tx, deps, 'extract-file', { document_id: document!.id, sha256 }, user.id)
    await recordActivity(tx, deps, user, {
      action: 'file.upload',
      ...aboutDocument(document!),
      summary: { format: stored!.format, size_bytes: stored!.size_bytes, replaced: existing !== undefined },
    })
    return { document: document!, file: stored!, deduplicated: false }
  })
}

/** The file's format by its bytes; a kind not read, or bytes that are not what the name says, is a 415. */
function sniffOrRefuse(bytes: Uint8Array, name: string, contentType: string) {
  try {
    return sniffFormat(bytes, name, contentType || undefined)
  } catch (error) {
    if (error instanceof UnreadableFile) throw new AppError(415, error.message)
    throw error
  }
}

/** The newest file of that name in the workspace, with its document (not a draft). */
async function fileByName(tx: Tx, userId: string, workspaceId: string, name: string) {
  const [row] = await tx
    .select({ file: documentFiles, document: documents })
    .from(documentFiles)
    .innerJoin(documents, eq(documents.id, documentFiles.document_id))
    .where(
      and(
        eq(documentFiles.user_id, userId),
        eq(documentFiles.name, name),
        eq(documents.workspace_id, workspaceId),
        ne(documents.status, 'pending_approval'),
      ),
    )
    .orderBy(desc(documents.id))
    .limit(1)
  return row
}

/** The file a document was uploaded as (404 for another user's document, or one that is not a file). */
export async function findFile(db: Tx, userId: string, documentId: string): Promise<FileRow> {
  const [row] = await db
    .select()
    .from(documentFiles)
    .where(and(eq(documentFiles.document_id, documentId), eq(documentFiles.user_id, userId)))
  if (!row) throw notFound(`document ${documentId} has no file`)
  return row
}

/** The file's facts as the API shows them (never its bytes). */
export function toFileDto(file: Omit<FileRow, 'bytes'>) {
  return {
    name: file.name,
    format: file.format,
    content_type: file.content_type,
    size_bytes: file.size_bytes,
    sha256: file.sha256,
    status: file.status as 'processing' | 'done' | 'failed',
    error: file.error,
    pages: file.pages,
  }
}

/** The body a file's sections make, and where each section starts in it. */
export function bodyOf(extracted: Extracted): { body: string; sections: FileSection[] } {
  const sections: FileSection[] = []
  let body = ''
  for (const s of extracted.sections) {
    const text = s.text.trim()
    if (!text) continue
    if (body) body += '\n\n'
    const { text: _, ...where } = s
    sections.push({ start: body.length, ...where })
    body += text
  }
  return { body, sections }
}

/**
 * The document takes the file's text (and its title and tags, when the person gave none) and is indexed;
 * a file that cannot be read leaves the reason on the file and the document `failed`. Nothing happens when
 * a newer version of the file was uploaded meanwhile: its own job reads it.
 */
export async function settleExtraction(
  deps: Deps,
  documentId: string,
  sha256: string,
  outcome: { extracted: Extracted } | { error: string },
): Promise<void> {
  await deps.db.transaction(async (tx) => {
    // The document's row before its chunks, as every writer takes them (embed-batch.ts).
    const [doc] = await tx.select().from(documents).where(eq(documents.id, documentId)).for('update')
    const [file] = await tx.select().from(documentFiles).where(eq(documentFiles.document_id, documentId))
    if (!doc || !file || file.sha256 !== sha256) return
    const now = deps.clock.now()
    const fail = async (error: string) => {
      await tx.update(documentFiles).set({ status: 'failed', error, updated_at: now }).where(eq(documentFiles.document_id, documentId))
      await tx.update(documents).set({ index_status: 'failed', updated_at: now }).where(eq(documents.id, documentId))
    }
    if ('error' in outcome) return fail(outcome.error)
    const { extracted } = outcome
    const { body, sections } = bodyOf(extracted)
    const size = Buffer.byteLength(body, 'utf8')
    if (size > MAX_FILE_TEXT_BYTES)
      return fail(`its text is ${size} bytes; a document holds up to ${MAX_FILE_TEXT_BYTES} (4 MiB): split the file`)
    const titled = doc.title !== titleOf(file.name)
    const title = titled ? doc.title : extracted.title?.trim().slice(0, 500) || doc.title
    const tags = normalizeTags([...doc.tags, ...(extracted.tags ?? [])])
    const excerpt = deriveExcerpt(body)
    const [updated] = await tx
      .update(documents)
      .set({
        title,
        tags,
        body,
        excerpt,
        sections,
        content_hash: contentHash(body),
        size_bytes: sizeOf({ title, excerpt, body, metadata: doc.metadata }),
        index_status: 'pending',
        updated_at: now,
      })
      .where(eq(documents.id, documentId))
      .returning()
    await tx
      .update(documentFiles)
      .set({ status: 'done', error: null, pages: extracted.pages ?? null, updated_at: now })
      .where(eq(documentFiles.document_id, documentId))
    await indexDocument(tx, deps, updated!)
  })
}

/** Extraction limits from the owner's plan and the service's settings. */
async function limitsFor(deps: Deps, userId: string): Promise<ExtractLimits> {
  const [owner] = await deps.db
    .select({ plan: accountPlan(deps.config) })
    .from(users)
    .where(eq(users.id, userId))
  return fileLimits(deps, owner?.plan ?? 'free')
}

/** The extract-file job: reads the file in a subprocess with limits; an unreadable file is an outcome, not a retry. */
export async function extractUploadedFile(deps: Deps, userId: string, documentId: string, sha256: string): Promise<void> {
  const [file] = await deps.db
    .select()
    .from(documentFiles)
    .where(and(eq(documentFiles.document_id, documentId), eq(documentFiles.user_id, userId)))
  if (!file || file.sha256 !== sha256) return // deleted, or replaced by a newer version with its own job
  let outcome: { extracted: Extracted } | { error: string }
  try {
    outcome = { extracted: await extractFile(file.bytes, file.name, await limitsFor(deps, userId)) }
  } catch (error) {
    if (!(error instanceof UnreadableFile)) throw error
    outcome = { error: error.message }
  }
  await settleExtraction(deps, documentId, sha256, outcome)
}

/** Runs when the extract-file job has failed for good (not an unreadable file: the worker itself failed). */
export async function extractionGaveUp(deps: Deps, documentId: string, sha256: string, error: string): Promise<void> {
  await settleExtraction(deps, documentId, sha256, { error: `the file could not be read: ${error}` })
}
