// A screen loaded on first visit (Bun's bundler makes each import() its own chunk), so the first screen's
// JavaScript stays small: the graph's layout and canvas, the usage chart and the other screens come later.
import type { ComponentType } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { ApiError } from '../api/client'
import { ErrorNote, Loading } from './states'

export function lazy<P extends object>(load: () => Promise<ComponentType<P>>): ComponentType<P> {
  let loaded: ComponentType<P> | undefined
  let loading: Promise<ComponentType<P>> | undefined
  return function Lazy(props: P) {
    const [, setRound] = useState(0)
    const [error, setError] = useState<ApiError>()
    const [attempt, setAttempt] = useState(0)
    useEffect(() => {
      if (loaded) return
      let alive = true
      loading ??= load().then((component) => (loaded = component))
      loading.then(
        () => alive && setRound((r) => r + 1),
        () => {
          loading = undefined
          if (alive)
            setError(
              new ApiError(
                0,
                'this screen could not be loaded: the dashboard may have been updated or the service is unreachable; try again or reload',
              ),
            )
        },
      )
      return () => void (alive = false)
    }, [attempt])
    if (error) return <ErrorNote error={error} retry={() => (setError(undefined), setAttempt((a) => a + 1))} />
    if (!loaded) return <Loading label="Loading the screen…" />
    const Screen = loaded
    return <Screen {...props} />
  }
}
