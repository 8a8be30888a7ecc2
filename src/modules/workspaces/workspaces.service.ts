// Workspaces: list with counts, create (capped per plan), rename, delete (cascades; never the last one).
import { and, count, desc, eq, lt, sql } from 'drizzle-orm'
import { settings, workspaces } from '../../../db/schema'
import type { Tx } from '../../../db/client'
import type { Deps } from '../../deps'
import { conflict, notFound } from '../../http/errors'
import { decodeCursor, toPage } from '../../lib/cursor'
import { lockUser } from '../../lib/locks'
import { assertWithinLimit } from '../../plans'
import { recordActivity } from '../activity/activity.service'
import type { SessionUser } from '../auth/session-user'

type WorkspaceRow = typeof workspaces.$inferSelect

const toWorkspaceDto = (row: WorkspaceRow, documentCount: number) => ({
  id: row.id,
  name: row.name,
  description: row.description,
  document_count: documentCount,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
})
export type WorkspaceDto = ReturnType<typeof toWorkspaceDto>

/** Active documents only: what search, lists and context packs see. */
// Qualified by hand: inside a subquery drizzle renders bare column names, and a bare "id" would be documents.id.
const activeCount = sql<number>`(select count(*)::int from documents d where d.workspace_id = "workspaces"."id" and d.status = 'active')`

export async function findWorkspace(db: Tx, userId: string, id: string): Promise<WorkspaceRow> {
  const [row] = await db
    .select()
    .from(workspaces)
    .where(and(eq(workspaces.id, id), eq(workspaces.user_id, userId)))
  if (!row) throw notFound(`workspace ${id} not found`)
  return row
}

/** The given workspace (checked to be the user's), else the default one of the settings, else the oldest. */
export async function resolveWorkspaceId(db: Tx, userId: string, id: string | undefined): Promise<string> {
  if (id) return (await findWorkspace(db, userId, id)).id
  const [chosen] = await db
    .select({ id: workspaces.id })
    .from(workspaces)
    .leftJoin(settings, eq(settings.user_id, workspaces.user_id))
    .where(eq(workspaces.user_id, userId))
    .orderBy(sql`${workspaces.id} = ${settings.default_workspace_id} desc nulls last`, workspaces.id)
    .limit(1)
  if (!chosen) throw notFound('no workspace: create one first')
  return chosen.id
}

export async function listWorkspaces(deps: Deps, user: SessionUser, page: { limit?: number; cursor?: string }) {
  const limit = page.limit ?? 20
  const after = decodeCursor(page.cursor)
  const rows = await deps.db
    .select({ row: workspaces, document_count: activeCount })
    .from(workspaces)
    .where(and(eq(workspaces.user_id, user.id), after ? lt(workspaces.id, after) : undefined))
    .orderBy(desc(workspaces.id))
    .limit(limit + 1)
  const { items, next_cursor } = toPage(
    rows.map((r) => ({ ...r, id: r.row.id })),
    limit,
  )
  return { data: items.map((r) => toWorkspaceDto(r.row, r.document_count)), next_cursor }
}

export async function getWorkspace(deps: Deps, user: SessionUser, id: string): Promise<WorkspaceDto> {
  const [r] = await deps.db
    .select({ row: workspaces, document_count: activeCount })
    .from(workspaces)
    .where(and(eq(workspaces.id, id), eq(workspaces.user_id, user.id)))
  if (!r) throw notFound(`workspace ${id} not found`)
  return toWorkspaceDto(r.row, r.document_count)
}

const aboutWorkspace = (row: WorkspaceRow) => ({
  object_type: 'workspace' as const,
  object_id: row.id,
  title: row.name,
  workspace_id: row.id,
})

export async function createWorkspace(
  deps: Deps,
  user: SessionUser,
  input: { name: string; description?: string | null },
): Promise<WorkspaceDto> {
  const now = deps.clock.now()
  const row = await deps.db.transaction(async (tx) => {
    await lockUser(tx, user.id, 'workspaces')
    const [{ n } = { n: 0 }] = await tx.select({ n: count() }).from(workspaces).where(eq(workspaces.user_id, user.id))
    assertWithinLimit(deps, user.plan, 'workspaces', n)
    const [created] = await tx
      .insert(workspaces)
      .values({
        id: deps.ids.next(),
        user_id: user.id,
        name: input.name.trim(),
        description: input.description?.trim() || null,
        created_at: now,
        updated_at: now,
      })
      .returning()
    await recordActivity(tx, deps, user, { action: 'workspace.create', ...aboutWorkspace(created!) })
    return created!
  })
  return toWorkspaceDto(row, 0)
}

export async function updateWorkspace(
  deps: Deps,
  user: SessionUser,
  id: string,
  input: { name?: string; description?: string | null },
): Promise<WorkspaceDto> {
  const [row] = await deps.db
    .update(workspaces)
    .set({
      ...(input.name !== undefined ? { name: input.name.trim() } : {}),
      ...(input.description !== undefined ? { description: input.description?.trim() || null } : {}),
      updated_at: deps.clock.now(),
    })
    .where(and(eq(workspaces.id, id), eq(workspaces.user_id, user.id)))
    .returning()
  if (!row) throw notFound(`workspace ${id} not found`)
  await recordActivity(deps.db, deps, user, { action: 'workspace.update', ...aboutWorkspace(row), summary: { fields: Object.keys(input) } })
  return getWorkspace(deps, user, id)
}

/** Deletes the workspace and, by cascade, its documents, chunks, links, conversations and connectors. */
export async function deleteWorkspace(deps: Deps, user: SessionUser, id: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    await lockUser(tx, user.id, 'workspaces')
    const workspace = await findWorkspace(tx, user.id, id)
    const [{ n } = { n: 0 }] = await tx.select({ n: count() }).from(workspaces).where(eq(workspaces.user_id, user.id))
    if (n <= 1) throw conflict('the last workspace cannot be deleted; create another one first')
    await tx.delete(workspaces).where(and(eq(workspaces.id, id), eq(workspaces.user_id, user.id)))
    await recordActivity(tx, deps, user, { action: 'workspace.delete', ...aboutWorkspace(workspace) })
  })
}
