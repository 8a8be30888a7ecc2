// The scopes of a new key as checkboxes, each with the API's one-line explanation; "keys" carries a warning, since
// a key holding it can make more keys.
import { KEY_SCOPES, SCOPE_DESCRIPTIONS, type KeyScope } from '../lib/key-scopes'

interface Props {
  value: readonly KeyScope[]
  onChange(scopes: KeyScope[]): void
}

export function ScopeChoice({ value, onChange }: Props) {
  const toggle = (scope: KeyScope, on: boolean) => onChange(KEY_SCOPES.filter((s) => (s === scope ? on : value.includes(s))))
  return (
    <fieldset class="scopes" aria-describedby={value.length === 0 ? 'scopes-none' : undefined}>
      <legend>Scopes</legend>
      {KEY_SCOPES.map((scope) => {
        const [name, ...rest] = SCOPE_DESCRIPTIONS[scope].split(': ')
        return (
          <label key={scope} class="choice">
            <input
              type="checkbox"
              name="scopes"
              value={scope}
              checked={value.includes(scope)}
              onChange={(e) => toggle(scope, e.currentTarget.checked)}
            />
            <span>
              <strong>{name}</strong>: {rest.join(': ')}
            </span>
          </label>
        )
      })}
      <p class="notice">
        A key with <strong>keys</strong> can make more keys (with no more scopes than its own) and revoke them: give it only to a tool that
        manages keys.
      </p>
      {value.length === 0 && (
        <p id="scopes-none" class="error-text">
          Choose at least one scope.
        </p>
      )}
    </fieldset>
  )
}
