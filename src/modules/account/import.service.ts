// POST /api/account/import: an exported archive (or a zip of a Markdown folder: an Obsidian vault) read, checked
// whole, then written in one transaction — all of it or, on any refusal (400 naming the first bad entry, 402 a plan
// cap), nothing. New documents go through the bulk ingest's insert (keyword-indexed at commit, embedding queued).
import { settings, threads, workspaces, links } from '../../../db/schema'
import type { Tx } from '../../../db/client'
import type { Deps } from '../../deps'
import { badRequest } from '../../http/errors'
import { lockUser } from '../../lib/locks'
import { recordActivity } from '../activity/activity.service'
import { viaSurface, type Principal } from '../auth/session-user'
import { writerOf } from '../documents/approval'
import { assertWithinPlan } from '../documents/bulk.plan'
import { insertIndexedDocuments, type NewDocument } from '../documents/documents.insert'
import { isMemoryKind } from '../documents/documents.model'
import { ENTRY } from './archive-format'
import { storeOriginals } from './archive-originals'
import { type ImportContent, readArchive } from './archive-read'
import { listZip } from './archive-zip'
import { type ImportPlan, planImport } from './import.plan'
import { readVault } from './vault-read'

/** Rows of documents a call of the insert function takes (its JSON parameters stay a few MiB). */
const INSERT_ROWS = 500

export interface ImportResult {
  format: 'archive' | 'obsidian'
  workspaces: { created: number; existing: number }
  threads: { created: number; existing: number }
  documents: { created: number; skipped: number }
  memories: { created: number; skipped: number; drafted: number }
  messages: { created: number; skipped: number }
  links: { created: number; skipped: number }
  originals: { stored: number }
  settings: { applied: boolean }
  skipped_entries: number
}

/** Reads the zip in `bytes` (the archive format when it holds manifest.json, else a vault) and imports it. */
export async function importAccount(deps: Deps, principal: Principal, bytes: Uint8Array): Promise<ImportResult> {
  if (bytes.byteLength === 0) throw badRequest('file: the archive is empty')
  const entries = listZip(bytes)
  const content = entries.some((e) => e.name === ENTRY.manifest)
    ? readArchive(bytes, entries)
    : readVault(bytes, entries, principal.via === 'session' ? 'extension' : 'api', deps.clock.now())
  if (content.format === 'obsidian' && content.documents.length === 0)
    throw badRequest('file: the zip holds no manifest.json and no Markdown note')
  return writeImport(deps, principal, content)
}

async function writeImport(deps: Deps, principal: Principal, content: ImportContent): Promise<ImportResult> {
  // What it writes is recorded as made by the caller through an import: one entry for the whole import (its counts),
  // and each document's first version names it.
  const user = viaSurface(principal.user, 'import')
  return deps.db.transaction(async (tx) => {
    // The locks ingest and workspace creation take: caps counted here hold until commit.
    await lockUser(tx, user.id, 'workspaces')
    await lockUser(tx, user.id, 'documents')
    const plan = await planImport(tx, deps, user, writerOf(principal), content)
    const created = new Map(plan.newDocuments.map((d) => [d.id, d]))
    await assertWithinPlan(deps, tx, user, { results: new Map(), created, updated: new Map(), originals: new Map(), drafts: [] }, true)
    if (plan.newWorkspaces.length) await tx.insert(workspaces).values(plan.newWorkspaces)
    for (let i = 0; i < plan.newThreads.length; i += INSERT_ROWS) await tx.insert(threads).values(plan.newThreads.slice(i, i + INSERT_ROWS))
    for (let i = 0; i < plan.newDocuments.length; i += INSERT_ROWS)
      await insertIndexedDocuments(tx, deps, plan.newDocuments.slice(i, i + INSERT_ROWS))
    const linked = await writeLinks(tx, deps, user.id, content, plan)
    const applied = await writeSettings(tx, deps, user.id, content, plan)
    const newIds = new Map([...plan.ids].filter(([, id]) => created.has(id)))
    const stored = await storeOriginals(tx, deps, user, newIds, content.originals)
    const imported = result(content, plan, linked, applied, stored)
    const { skipped_entries: _, ...counts } = imported
    await recordActivity(tx, deps, user, { action: 'account.import', object_type: 'account', summary: counts })
    return imported
  })
}

/** Links between the archive's documents; a pair the account already links is kept as it is. */
async function writeLinks(tx: Tx, deps: Deps, userId: string, content: ImportContent, plan: ImportPlan): Promise<number> {
  const now = deps.clock.now()
  const rows = content.links.map((l) => ({
    id: deps.ids.next(),
    user_id: userId,
    source_id: plan.ids.get(l.source)!,
    target_id: plan.ids.get(l.target)!,
    score: l.score,
    status: l.status,
    origin: l.origin,
    created_at: l.created_at ? new Date(l.created_at) : now,
  }))
  let written = 0
  for (let i = 0; i < rows.length; i += INSERT_ROWS) {
    const inserted = await tx
      .insert(links)
      .values(rows.slice(i, i + INSERT_ROWS))
      .onConflictDoNothing()
      .returning({ id: links.id })
    written += inserted.length
  }
  return written
}

/** The archive's settings replace the account's (the default workspace read through the new ids). */
async function writeSettings(tx: Tx, deps: Deps, userId: string, content: ImportContent, plan: ImportPlan): Promise<boolean> {
  if (!content.settings) return false
  const { default_workspace, ...rest } = content.settings
  const values = {
    ...(rest as { search_mode: string; answer_style: string; remember_conversations: boolean }),
    default_workspace_id: default_workspace ? plan.ids.get(default_workspace)! : null,
    updated_at: deps.clock.now(),
  }
  await tx
    .insert(settings)
    .values({ user_id: userId, ...values })
    .onConflictDoUpdate({ target: settings.user_id, set: values })
  return true
}

function result(content: ImportContent, plan: ImportPlan, linked: number, applied: boolean, stored: number): ImportResult {
  const made = (test: (d: NewDocument) => boolean) => plan.newDocuments.filter(test).length
  return {
    format: content.format,
    workspaces: { created: plan.newWorkspaces.length, existing: plan.skipped.workspaces },
    threads: { created: plan.newThreads.length, existing: plan.skipped.threads },
    documents: { created: made((d) => !d.thread_id && !isMemoryKind(d.kind)), skipped: plan.skipped.documents },
    memories: { created: made((d) => isMemoryKind(d.kind)), skipped: plan.skipped.memories, drafted: plan.drafted },
    messages: { created: made((d) => d.thread_id !== null), skipped: plan.skipped.messages },
    links: { created: linked, skipped: content.links.length - linked },
    originals: { stored },
    settings: { applied },
    skipped_entries: content.skipped_entries,
  }
}
