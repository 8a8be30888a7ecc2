// Loading, empty, error and rate-limited states, the same on every screen.
import type { ComponentChildren } from 'preact'
import type { ApiError } from '../api/client'
import { useUser } from '../lib/session'
import type { Action, Query } from '../lib/use-api'

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p class="state loading" role="status">
      <span class="spinner" aria-hidden="true" />
      {label}
    </p>
  )
}

export function Waiting({ seconds }: { seconds: number }) {
  return (
    <p class="state waiting" role="status">
      Too many requests: trying again in {seconds} s.
    </p>
  )
}

export function ErrorNote({ error, retry }: { error: ApiError; retry?: () => void }) {
  const user = useUser()
  // A signed-in screen's 401 is on its way to sign-in (lib/session.ts); a sign-in form's 401 is its answer.
  if (error.status === 401 && user) return <Loading label="Your session ended: taking you to sign in…" />
  return (
    <div class="state error" role="alert">
      <p>
        <strong>{error.status ? `Error ${error.status}` : 'Offline'}:</strong> {error.message}
      </p>
      {retry && (
        <button type="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  )
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <div class="state empty">{children}</div>
}

/** Renders `children(data)` once loaded; before that (or on failure) the shared state. Data kept while reloading. */
export function Loaded<T>({ query, children, label }: { query: Query<T>; children: (data: T) => ComponentChildren; label?: string }) {
  if (query.waiting > 0) return <Waiting seconds={query.waiting} />
  if (query.error) return <ErrorNote error={query.error} retry={query.reload} />
  if (query.data === undefined) return <Loading label={label} />
  return <>{children(query.data)}</>
}

/** What a write is doing: waiting out a 429, or its error. */
export function ActionStatus({ action }: { action: Action }) {
  if (action.waiting > 0) return <Waiting seconds={action.waiting} />
  if (action.error) return <ErrorNote error={action.error} />
  return null
}
