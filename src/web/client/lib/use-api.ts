// The one place loading, error, 401 and 429 are handled for reads (useApi) and writes (useAction): a 401
// goes to sign-in and back, a 429 waits the Retry-After seconds (shown counting down) and tries again.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import { ApiError } from '../api/client'
import { sessionExpired } from './session'
import { waitSeconds } from './wait'

const MAX_RETRIES = 3

export interface Query<T> {
  data: T | undefined
  error: ApiError | undefined
  loading: boolean
  /** Seconds left before a rate-limited call is tried again; 0 when not waiting. */
  waiting: number
  reload(): void
}

/** Runs `call`; on 429 waits and retries (at most MAX_RETRIES times); on 401 ends the session. */
async function persist<T>(call: () => Promise<T>, onWait: (left: number) => void, signal?: AbortSignal): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call()
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) sessionExpired()
      if (!(error instanceof ApiError) || error.status !== 429 || attempt >= MAX_RETRIES) throw error
      await waitSeconds(error.retryAfter ?? 5, onWait, signal)
      onWait(0)
    }
  }
}

const asApiError = (error: unknown) =>
  error instanceof ApiError ? error : new ApiError(0, (error as Error)?.message || 'something went wrong')

/** Loads data for a screen; runs again when `deps` change or on reload(). Keeps the last data while reloading. */
export function useApi<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]): Query<T> {
  const [state, setState] = useState<{ data?: T; error?: ApiError; loading: boolean }>({ loading: true })
  const [waiting, setWaiting] = useState(0)
  const [round, setRound] = useState(0)
  useEffect(() => {
    const controller = new AbortController()
    setState((s) => ({ data: s.data, loading: true }))
    persist(() => load(controller.signal), setWaiting, controller.signal).then(
      (data) => !controller.signal.aborted && setState({ data, loading: false }),
      (error: unknown) =>
        !controller.signal.aborted &&
        (error as Error)?.name !== 'AbortError' &&
        setState((s) => ({ data: s.data, error: asApiError(error), loading: false })),
    )
    return () => controller.abort()
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, round])
  const reload = useCallback(() => setRound((r) => r + 1), [])
  return { data: state.data, error: state.error, loading: state.loading, waiting, reload }
}

export interface Action {
  busy: boolean
  error: ApiError | undefined
  waiting: number
  /** Runs a write; resolves to its result, or undefined when it failed (the error is then in `error`). */
  run<T>(call: () => Promise<T>): Promise<T | undefined>
  clear(): void
}

export function useAction(): Action {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<ApiError>()
  const [waiting, setWaiting] = useState(0)
  const alive = useRef(true)
  useEffect(() => () => void (alive.current = false), [])
  const run = useCallback(async <T>(call: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true)
    setError(undefined)
    try {
      return await persist(call, (left) => alive.current && setWaiting(left))
    } catch (failure) {
      if (alive.current) setError(asApiError(failure))
      return undefined
    } finally {
      if (alive.current) setBusy(false)
    }
  }, [])
  return { busy, error, waiting, run, clear: useCallback(() => setError(undefined), []) }
}
