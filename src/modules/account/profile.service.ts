// The profile: the person's name, sign-in email and avatar (/api/profile, /api/avatar).
import { and, desc, eq, gt, ne } from 'drizzle-orm'
import { emailTokens, identities, users } from '../../../db/schema'
import type { Deps } from '../../deps'
import { AppError, notFound, payloadTooLarge } from '../../http/errors'
import { recordActivity } from '../activity/activity.service'
import { toUserDto } from '../auth/auth.service'
import { changeEmail } from '../auth/credentials.service'
import type { Principal, SessionUser } from '../auth/session-user'

const toProfile = async (deps: Deps, row: typeof users.$inferSelect) => {
  const { id, email, name, avatar_url } = toUserDto(deps, row)
  const linked = await deps.db.select({ provider: identities.provider }).from(identities).where(eq(identities.user_id, id))
  // A change of address waits for its link: the newest unexpired one names the address it would become.
  const [pending] = await deps.db
    .select({ email: emailTokens.email })
    .from(emailTokens)
    .where(
      and(
        eq(emailTokens.user_id, id),
        eq(emailTokens.purpose, 'verify-email'),
        ne(emailTokens.email, email),
        gt(emailTokens.expires_at, deps.clock.now()),
      ),
    )
    .orderBy(desc(emailTokens.created_at))
    .limit(1)
  return {
    id,
    email,
    email_verified: row.email_verified_at !== null,
    pending_email: pending?.email ?? null,
    identities: [...new Set(linked.map((l) => l.provider as 'github' | 'google'))].sort(),
    name,
    avatar_url,
  }
}

async function userRow(deps: Deps, id: string) {
  const [row] = await deps.db.select().from(users).where(eq(users.id, id))
  if (!row) throw notFound('account not found')
  return row
}

export async function getProfile(deps: Deps, user: SessionUser) {
  return toProfile(deps, await userRow(deps, user.id))
}

/** The name by anyone with write; the sign-in email only by the person, with the current password (credentials.service). */
export async function updateProfile(
  deps: Deps,
  principal: Principal,
  input: { name?: string | null; email?: string; current_password?: string },
) {
  const { user } = principal
  if (input.email !== undefined) await changeEmail(deps, principal, { email: input.email, current_password: input.current_password })
  if (input.name !== undefined) {
    await deps.db
      .update(users)
      .set({ name: input.name?.trim() || null, updated_at: deps.clock.now() })
      .where(eq(users.id, user.id))
  }
  // The address itself is not recorded: a change of it waits for its mailed link (credentials.service.ts).
  await recordActivity(deps.db, deps, user, {
    action: 'profile.update',
    object_type: 'account',
    summary: { fields: Object.keys(input).filter((f) => f !== 'current_password') },
  })
  return getProfile(deps, user)
}

export const MAX_AVATAR_BYTES = 1024 * 1024

/** The image type by its first bytes — never by the name or the declared type, which the client controls. */
export function imageTypeOf(bytes: Uint8Array): string | null {
  const ascii = (from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to))
  if (
    bytes.length >= 8 &&
    bytes[0] === 0x89 &&
    ascii(1, 4) === 'PNG' &&
    bytes[4] === 0x0d &&
    bytes[5] === 0x0a &&
    bytes[6] === 0x1a &&
    bytes[7] === 0x0a
  )
    return 'image/png'
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg'
  if (bytes.length >= 6 && (ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a')) return 'image/gif'
  if (bytes.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp'
  return null
}

export async function setAvatar(deps: Deps, user: SessionUser, file: File) {
  if (file.size > MAX_AVATAR_BYTES) throw payloadTooLarge(`file: the avatar is larger than ${MAX_AVATAR_BYTES} bytes`)
  const bytes = new Uint8Array(await file.arrayBuffer())
  const type = imageTypeOf(bytes)
  if (!type) throw new AppError(415, 'file: the avatar must be a PNG, JPEG, WebP or GIF image')
  const [row] = await deps.db
    .update(users)
    .set({ avatar: bytes, avatar_type: type, updated_at: deps.clock.now() })
    .where(eq(users.id, user.id))
    .returning()
  await recordActivity(deps.db, deps, user, { action: 'profile.update', object_type: 'account', summary: { fields: ['avatar'] } })
  return toProfile(deps, row!)
}

/** Only the caller's own avatar: another user's is a 404 like a missing one. */
export async function getAvatar(deps: Deps, user: SessionUser, id: string): Promise<{ bytes: Uint8Array; type: string }> {
  if (id !== user.id) throw notFound('avatar not found')
  const row = await userRow(deps, user.id)
  if (!row.avatar || !row.avatar_type) throw notFound('avatar not found')
  return { bytes: row.avatar, type: row.avatar_type }
}
