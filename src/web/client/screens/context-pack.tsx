// The context pack of a workspace (GET /api/workspaces/:id/context), what an agent reads before it works:
// drawn as lists, and as the very JSON the agent receives, with the max_tokens budget adjustable.
import { useEffect, useState } from 'preact/hooks'
import { api, unwrap } from '../api/client'
import type { paths } from '../api/schema'
import { formatDate, plural } from '../lib/format'
import { useOpeningWorkspace } from '../lib/default-workspace'
import { useApi } from '../lib/use-api'
import { useWorkspaces } from '../lib/workspaces'
import { Link } from '../ui/link'
import { Loaded } from '../ui/states'

type Pack = paths['/api/workspaces/{id}/context']['get']['responses']['200']['content']['application/json']
type Item = Pack['recent'][number]

/** The budget the agent's own get_workspace_context uses unless it asks for another. */
const DEFAULT_BUDGET = 2000
const MIN = 50
const MAX = 8000

export function ContextPackPanel() {
  const { list, current } = useWorkspaces()
  const [chosen, setChosen] = useState('')
  // With the switcher on every workspace, the pack opens on the default one of the settings.
  const opening = useOpeningWorkspace()
  const workspace = current || chosen || opening
  const [limited, setLimited] = useState(true)
  const [budget, setBudget] = useState(DEFAULT_BUDGET)
  // The slider asks once it rests, not at every step it passes.
  const [asked, setAsked] = useState(budget)
  useEffect(() => {
    const timer = setTimeout(() => setAsked(budget), 250)
    return () => clearTimeout(timer)
  }, [budget])
  const max_tokens = limited ? asked : undefined
  const pack = useApi(
    async (signal) => {
      if (!workspace) return null
      // As text first: its length is what the agent's budget is measured in (about four characters a token).
      const raw = await unwrap(
        api.GET('/api/workspaces/{id}/context', { params: { path: { id: workspace }, query: { max_tokens } }, parseAs: 'text', signal }),
      )
      return { raw: raw as unknown as string, pack: JSON.parse(raw as unknown as string) as Pack }
    },
    [workspace, max_tokens],
  )

  return (
    <section class="context-pack card" aria-labelledby="pack-heading">
      <h2 id="pack-heading">Context pack</h2>
      <p class="hint">What an agent reads before it works in a workspace (get_workspace_context), trimmed to its token budget.</p>
      <div class="pack-controls">
        {!current && (
          <label>
            Workspace
            <select value={workspace} onChange={(e) => setChosen(e.currentTarget.value)}>
              {list?.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.name}
                </option>
              ))}
            </select>
          </label>
        )}
        <label class="inline">
          <input type="checkbox" checked={limited} onChange={(e) => setLimited(e.currentTarget.checked)} /> Token budget (max_tokens)
        </label>
        <div class="row budget">
          <input
            type="range"
            aria-label="Token budget, slider"
            min={MIN}
            max={MAX}
            step={50}
            value={budget}
            disabled={!limited}
            onInput={(e) => setBudget(Number(e.currentTarget.value))}
          />
          <input
            type="number"
            aria-label="Token budget"
            min={MIN}
            max={200000}
            step={50}
            value={budget}
            disabled={!limited}
            onChange={(e) => {
              const n = Math.round(Number(e.currentTarget.value))
              if (Number.isFinite(n)) setBudget(Math.min(200000, Math.max(MIN, n)))
            }}
          />
        </div>
      </div>
      <Loaded query={pack} label="Loading the context pack…">
        {(loaded) =>
          loaded ? <PackView raw={loaded.raw} pack={loaded.pack} budget={max_tokens} /> : <p class="hint">No workspace yet.</p>
        }
      </Loaded>
    </section>
  )
}

function PackView({ raw, pack, budget }: { raw: string; pack: Pack; budget: number | undefined }) {
  const tokens = Math.ceil(raw.length / 4)
  const s = pack.stats
  return (
    <div class="pack" aria-live="polite">
      <p class="pack-size" role="status">
        About {tokens.toLocaleString()} tokens{budget ? ` of a ${budget.toLocaleString()} budget` : ' (no budget)'}
        {pack.truncated ? ' · trimmed: some items were left out to fit' : ' · nothing left out'}
      </p>
      <p class="meta">
        <span>{pack.workspace.name}</span>
        <span>{plural(s.documents, 'document')}</span>
        <span>{plural(s.memories, 'memory', 'memories')}</span>
        <span>{plural(s.pending_drafts, 'draft')} pending</span>
        <span>{plural(s.links, 'link')}</span>
        {s.last_updated && <span>updated {formatDate(s.last_updated)}</span>}
      </p>
      <Items title="Pinned" items={pack.pinned} />
      <Items title="Routines" items={pack.routines} />
      {pack.topic_facts.map((t) => (
        <Items key={t.topic} title={`Facts: ${t.topic}`} items={t.facts} />
      ))}
      <Items title="Recent" items={pack.recent} />
      <details class="pack-json">
        <summary>The JSON an agent receives ({raw.length.toLocaleString()} characters)</summary>
        <pre tabIndex={0}>
          <code>{JSON.stringify(pack, null, 2)}</code>
        </pre>
      </details>
    </div>
  )
}

function Items({ title, items }: { title: string; items: Item[] }) {
  if (!items.length) return null
  return (
    <section class="pack-section">
      <h3>
        {title} <span class="count">{items.length}</span>
      </h3>
      <ul>
        {items.map((item) => (
          <li key={item.id}>
            <Link href={`/app/documents/${item.id}`}>{item.title}</Link> <span class="kind">{item.kind}</span>
          </li>
        ))}
      </ul>
    </section>
  )
}
