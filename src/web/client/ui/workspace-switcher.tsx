// The workspace switcher: which workspace Home, Documents and Search show ('' = all of them).
import { chooseWorkspace, useWorkspaces } from '../lib/workspaces'

export function WorkspaceSwitcher() {
  const { list, current } = useWorkspaces()
  return (
    <label class="switcher">
      <span class="visually-hidden">Workspace</span>
      <select value={current} onChange={(e) => chooseWorkspace(e.currentTarget.value)} disabled={!list}>
        <option value="">All workspaces</option>
        {list?.map((w) => (
          <option key={w.id} value={w.id}>
            {w.name}
          </option>
        ))}
      </select>
    </label>
  )
}
