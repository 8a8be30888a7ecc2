// The workspace a screen that shows one workspace opens on: the switcher's choice, else the default of the person's
// settings (default_workspace_id, where ingest without a workspace lands), else the first listed.
import { useEffect, useState } from 'preact/hooks'
import { api, unwrap } from '../api/client'
import { useWorkspaces } from './workspaces'

/** The last default read, so a screen opened again starts on it while it is read afresh. */
let remembered: string | null | undefined

/** '' while the list or the settings are still loading (so nothing is fetched for a workspace about to change). */
export function useOpeningWorkspace(): string {
  const { list, current } = useWorkspaces()
  const [fallback, setFallback] = useState(remembered)
  useEffect(() => {
    if (current) return
    const controller = new AbortController()
    unwrap(api.GET('/api/settings', { signal: controller.signal })).then(
      (settings) => setFallback((remembered = settings.default_workspace_id)),
      () => !controller.signal.aborted && setFallback((remembered = remembered ?? null)),
    )
    return () => controller.abort()
  }, [current])
  if (!list) return ''
  if (current) return current
  if (fallback === undefined) return ''
  return list.find((w) => w.id === fallback)?.id ?? list[0]?.id ?? ''
}
