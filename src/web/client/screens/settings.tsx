// Settings and profile: default workspace, search mode and answer style; name and avatar; how the account is signed
// in to (the email, the password, GitHub or Google, the signed-in sessions); exporting and importing the account; and deleting the account (type DELETE to
// confirm: it cannot be undone).
import { useState } from 'preact/hooks'
import { api, unwrap } from '../api/client'
import type { paths } from '../api/schema'
import { announce } from '../lib/announce'
import { usePlace } from '../lib/router'
import { useAction, useApi } from '../lib/use-api'
import { useWorkspaces } from '../lib/workspaces'
import { PageTitle } from '../ui/page'
import { ActionStatus, Loaded } from '../ui/states'
import { AccountArchive } from './account-archive'
import { AccountDeletion } from './account-deletion'
import { LinkedProviders } from './linked-providers'
import { PasswordChange } from './password-change'
import { ProfileForm } from './profile'
import { Sessions } from './sessions'
import { SignInEmail } from './sign-in-email'

type Settings = paths['/api/settings']['get']['responses']['200']['content']['application/json']

export function SettingsScreen() {
  const settings = useApi((signal) => unwrap(api.GET('/api/settings', { signal })), [])
  const profile = useApi((signal) => unwrap(api.GET('/api/profile', { signal })), [])
  // Bumped when a password change ends the other sessions, so their list is read again.
  const [sessionsEnded, setSessionsEnded] = useState(0)
  const { query } = usePlace()
  return (
    <section class="settings">
      <PageTitle title="Settings" />
      {/* Where the mailed verification link lands (GET /api/auth/verify-email). */}
      {query.get('email') === 'verified' && <p class="notice">Your email address is verified.</p>}
      <p class="settings-jump">
        Further down: <a href="#security">Password and sessions</a>, your data and deleting the account.
      </p>
      <div class="settings-grid">
        <Loaded query={settings}>{(s) => <SettingsForm settings={s} />}</Loaded>
        <Loaded query={profile}>{(p) => <ProfileForm profile={p} onSaved={profile.reload} />}</Loaded>
      </div>
      <h2 class="settings-section" id="security" tabIndex={-1}>
        Sign-in and security
      </h2>
      <div class="settings-grid">
        <Loaded query={profile}>{(p) => <SignInEmail profile={p} onSaved={profile.reload} />}</Loaded>
        <PasswordChange onChanged={() => setSessionsEnded((n) => n + 1)} />
        <Sessions refresh={sessionsEnded} />
        <Loaded query={profile}>{(p) => <LinkedProviders profile={p} />}</Loaded>
      </div>
      <AccountArchive />
      <AccountDeletion />
    </section>
  )
}

const MODES = [
  ['hybrid', 'Hybrid: keyword and semantic, fused (best for most questions)'],
  ['keyword', 'Keyword: exact words only'],
  ['semantic', 'Semantic: by meaning only'],
] as const
const STYLES = [
  ['concise', 'Concise: a few sentences'],
  ['detailed', 'Detailed: longer answers with more of the sources'],
] as const

function SettingsForm({ settings }: { settings: Settings }) {
  const { list } = useWorkspaces()
  const [values, setValues] = useState(settings)
  const save = useAction()
  const submit = async (event: Event) => {
    event.preventDefault()
    const saved = await save.run(() => unwrap(api.PATCH('/api/settings', { body: values })))
    if (saved) setValues(saved), announce('Settings saved')
  }
  return (
    <form class="card stack" onSubmit={submit} aria-labelledby="settings-heading">
      <h2 id="settings-heading">Preferences</h2>
      <label>
        <span>
          Default workspace <span class="hint">(where documents land when none is named)</span>
        </span>
        <select
          value={values.default_workspace_id ?? ''}
          onChange={(e) => setValues({ ...values, default_workspace_id: e.currentTarget.value || null })}
        >
          <option value="">The oldest workspace</option>
          {list?.map((w) => (
            <option key={w.id} value={w.id}>
              {w.name}
            </option>
          ))}
        </select>
      </label>
      <fieldset>
        <legend>Search mode</legend>
        {MODES.map(([mode, text]) => (
          <label key={mode} class="choice">
            <input
              type="radio"
              name="search_mode"
              value={mode}
              checked={values.search_mode === mode}
              onChange={() => setValues({ ...values, search_mode: mode })}
            />
            {text}
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>Answer style</legend>
        {STYLES.map(([style, text]) => (
          <label key={style} class="choice">
            <input
              type="radio"
              name="answer_style"
              value={style}
              checked={values.answer_style === style}
              onChange={() => setValues({ ...values, answer_style: style })}
            />
            {text}
          </label>
        ))}
      </fieldset>
      <label class="choice">
        <input
          type="checkbox"
          name="remember_conversations"
          checked={values.remember_conversations}
          onChange={(e) => setValues({ ...values, remember_conversations: e.currentTarget.checked })}
        />
        <span>
          Remember conversations{' '}
          <span class="hint">
            (each question and answer of Ask, the agent and /v1 is also kept as a thread you can search and read under Conversations)
          </span>
        </span>
      </label>
      <button type="submit" class="primary" disabled={save.busy}>
        Save preferences
      </button>
      <ActionStatus action={save} />
    </form>
  )
}
