// A new password typed twice (changing it in Settings, resetting it by a mailed link): the two must match before
// the form is sent; the API's own rules (length, common passwords, the email) come back as its 400 message.
import type { ComponentChildren } from 'preact'
import { useState } from 'preact/hooks'

export interface NewPassword {
  password: string
  confirm: string
  /** The two differ (said under the second field once it has been typed in). */
  differ: boolean
  fields: ComponentChildren
  clear(): void
}

export function useNewPassword(id: string): NewPassword {
  const [password, setPassword] = useState('')
  const [confirm, setConfirm] = useState('')
  const differ = confirm !== '' && password !== confirm
  const note = `${id}-differ`
  const fields = (
    <>
      <label>
        <span>
          New password <span class="hint">(at least 8 characters, not a common one nor your email)</span>
        </span>
        <input
          name="new-password"
          type="password"
          autoComplete="new-password"
          required
          minLength={8}
          maxLength={256}
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
      </label>
      <label>
        Confirm new password
        <input
          name="confirm-password"
          type="password"
          autoComplete="new-password"
          required
          maxLength={256}
          value={confirm}
          aria-invalid={differ}
          aria-describedby={differ ? note : undefined}
          onInput={(e) => setConfirm(e.currentTarget.value)}
        />
      </label>
      {differ && (
        <p id={note} class="error-text">
          The two passwords differ.
        </p>
      )}
    </>
  )
  return { password, confirm, differ, fields, clear: () => (setPassword(''), setConfirm('')) }
}
