// Settings: the preferences search and answers read (GET and PATCH /api/settings).
import { eq } from 'drizzle-orm'
import { settings } from '../../../db/schema'
import type { Tx } from '../../../db/client'
import type { Deps } from '../../deps'
import { recordActivity } from '../activity/activity.service'
import type { SessionUser } from '../auth/session-user'
import { findWorkspace } from '../workspaces/workspaces.service'
import { DEFAULT_SETTINGS, settingsOf, type SettingsDto } from './settings.model'

/** The caller's settings (defaults when none were ever stored). */
export async function getSettings(db: Tx, userId: string): Promise<SettingsDto> {
  const [row] = await db.select().from(settings).where(eq(settings.user_id, userId))
  return settingsOf(row)
}

export async function updateSettings(deps: Deps, user: SessionUser, input: Partial<SettingsDto>): Promise<SettingsDto> {
  if (input.default_workspace_id) await findWorkspace(deps.db, user.id, input.default_workspace_id)
  const now = deps.clock.now()
  await deps.db
    .insert(settings)
    .values({ user_id: user.id, ...DEFAULT_SETTINGS, ...input, updated_at: now })
    .onConflictDoUpdate({ target: settings.user_id, set: { ...input, updated_at: now } })
  await recordActivity(deps.db, deps, user, { action: 'settings.update', object_type: 'settings', summary: { fields: Object.keys(input) } })
  return getSettings(deps.db, user.id)
}
