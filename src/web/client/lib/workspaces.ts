// The person's workspaces and the one the switcher has chosen ('' = all of them), shared by every screen
// and remembered in this browser.
import { useEffect, useState } from 'preact/hooks'
import { api, unwrap } from '../api/client'
import type { paths } from '../api/schema'

export type Workspace = paths['/api/workspaces']['get']['responses']['200']['content']['application/json']['data'][number]

const KEY = 'memory.workspace'
interface State {
  list: Workspace[] | undefined
  current: string
}

let state: State = { list: undefined, current: readStored() }
const listeners = new Set<() => void>()
const set = (next: Partial<State>) => {
  state = { ...state, ...next }
  listeners.forEach((listener) => listener())
}

function readStored(): string {
  try {
    return localStorage.getItem(KEY) ?? ''
  } catch {
    return ''
  }
}

export function chooseWorkspace(id: string): void {
  try {
    localStorage.setItem(KEY, id)
  } catch {}
  set({ current: id })
}

/** Loads the list (every page of it); a remembered workspace that no longer exists falls back to all. */
export async function loadWorkspaces(): Promise<void> {
  const list: Workspace[] = []
  let cursor: string | undefined
  do {
    const page = await unwrap(api.GET('/api/workspaces', { params: { query: { limit: 100, cursor } } }))
    list.push(...page.data)
    cursor = page.next_cursor ?? undefined
  } while (cursor)
  set({ list, current: list.some((w) => w.id === state.current) ? state.current : '' })
}

export function forgetWorkspaces(): void {
  set({ list: undefined })
}

export function useWorkspaces(): State {
  const [current, update] = useState(state)
  useEffect(() => {
    const listener = () => update(state)
    listeners.add(listener)
    listener()
    return () => void listeners.delete(listener)
  }, [])
  return current
}

export const workspaceName = (list: Workspace[] | undefined, id: string) => list?.find((w) => w.id === id)?.name ?? 'unknown workspace'
