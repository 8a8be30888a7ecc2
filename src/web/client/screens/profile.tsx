// The profile card of Settings: the name and the avatar (PNG, JPEG, WebP or GIF up to 1 MiB); the sign-in email has
// its own card (sign-in-email.tsx), since changing it takes the current password.
import { useRef, useState } from 'preact/hooks'
import { api, unwrap } from '../api/client'
import type { paths } from '../api/schema'
import { announce } from '../lib/announce'
import { setUser, useUser } from '../lib/session'
import { useAction } from '../lib/use-api'
import { ActionStatus } from '../ui/states'

type Profile = paths['/api/profile']['get']['responses']['200']['content']['application/json']

const MAX_AVATAR = 1024 * 1024
const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif']

/** The avatar's path on this origin (the page's CSP loads images from here only, whatever BASE_URL says). */
export function avatarSrc(url: string | null | undefined): string | null {
  if (!url) return null
  const parsed = new URL(url, location.origin)
  return parsed.pathname.startsWith('/api/avatar/') ? parsed.pathname + parsed.search : null
}

export function ProfileForm({ profile, onSaved }: { profile: Profile; onSaved(): void }) {
  const user = useUser()
  const [name, setName] = useState(profile.name ?? '')
  const save = useAction()
  const upload = useAction()
  const file = useRef<HTMLInputElement>(null)
  const [fileError, setFileError] = useState('')

  const apply = (saved: Profile) => {
    if (user) setUser({ ...user, name: saved.name, avatar_url: saved.avatar_url })
    onSaved()
  }
  const submit = async (event: Event) => {
    event.preventDefault()
    const saved = await save.run(() => unwrap(api.PATCH('/api/profile', { body: { name: name.trim() || null } })))
    if (saved) apply(saved), announce('Profile saved')
  }
  const chosen = async () => {
    const picked = file.current?.files?.[0]
    setFileError('')
    if (!picked) return
    if (!IMAGE_TYPES.includes(picked.type)) return setFileError(`${picked.name}: choose a PNG, JPEG, WebP or GIF image`)
    if (picked.size > MAX_AVATAR) return setFileError(`${picked.name}: the avatar must be at most 1 MiB`)
    const form = new FormData()
    form.append('file', picked)
    const saved = await upload.run(() => unwrap(api.POST('/api/avatar', { body: form as never })))
    if (file.current) file.current.value = ''
    if (saved) apply(saved), announce('Avatar updated')
  }
  const src = avatarSrc(profile.avatar_url)

  return (
    <form class="card stack" onSubmit={submit} aria-labelledby="profile-heading">
      <h2 id="profile-heading">Profile</h2>
      <div class="row avatar-row">
        {src ? (
          <img class="avatar" src={src} alt="Your avatar" width={64} height={64} />
        ) : (
          <span class="avatar empty" aria-hidden="true">
            {(profile.name || profile.email).slice(0, 1).toUpperCase()}
          </span>
        )}
        <label>
          <span>
            Avatar <span class="hint">(PNG, JPEG, WebP or GIF, up to 1 MiB)</span>
          </span>
          <input ref={file} type="file" accept={IMAGE_TYPES.join(',')} onChange={chosen} disabled={upload.busy} />
        </label>
      </div>
      {fileError && (
        <p class="error-text" role="alert">
          {fileError}
        </p>
      )}
      <ActionStatus action={upload} />
      <label>
        Name
        <input value={name} maxLength={100} autoComplete="name" onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <button type="submit" class="primary" disabled={save.busy}>
        Save profile
      </button>
      <ActionStatus action={save} />
    </form>
  )
}
