// Graph: one workspace's documents and links drawn (graph-canvas.tsx), with the pending suggestions listed
// to accept or dismiss by keyboard as well as by clicking their dashed edge. Loaded only on this screen.
import { useMemo, useState } from 'preact/hooks'
import { api, done, unwrap } from '../api/client'
import { announce } from '../lib/announce'
import { formatScore, plural } from '../lib/format'
import { navigate, usePlace, withQuery } from '../lib/router'
import { useAction, useApi } from '../lib/use-api'
import { chooseWorkspace, useWorkspaces } from '../lib/workspaces'
import { Link } from '../ui/link'
import { PageTitle } from '../ui/page'
import { ActionStatus, Empty, Loaded, Loading } from '../ui/states'
import { GraphCanvas, type GraphEdge, type GraphNode } from './graph-canvas'

const LIMITS = [200, 500, 1000, 2000] as const
type Graph = { nodes: GraphNode[]; edges: GraphEdge[]; truncated: boolean }

export function GraphScreen() {
  const { list, current } = useWorkspaces()
  const { query } = usePlace()
  const limit = LIMITS.find((l) => String(l) === query.get('limit')) ?? 500
  // The graph is one workspace's: the switcher's choice, or the first when it shows all of them.
  const workspace = current || list?.[0]?.id || ''
  const graph = useApi(
    (signal) =>
      workspace
        ? unwrap(api.GET('/api/graph', { params: { query: { workspace_id: workspace, limit } }, signal }))
        : Promise.resolve(undefined),
    [workspace, limit],
  )

  if (!list) return <Loading />
  return (
    <section class="graph-screen">
      <PageTitle title="Graph" />
      <div class="row options">
        <label>
          Workspace
          <select value={workspace} onChange={(e) => chooseWorkspace(e.currentTarget.value)}>
            {list.map((w) => (
              <option key={w.id} value={w.id}>
                {w.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Documents drawn
          <select value={limit} onChange={(e) => navigate(withQuery('/app/graph', { limit: e.currentTarget.value }), { replace: true })}>
            {LIMITS.map((l) => (
              <option key={l} value={l}>
                up to {l.toLocaleString()}
              </option>
            ))}
          </select>
        </label>
      </div>
      <Loaded query={graph}>{(data) => (data ? <GraphView key={`${workspace}:${limit}`} data={data} limit={limit} /> : null)}</Loaded>
    </section>
  )
}

function GraphView({ data, limit }: { data: Graph; limit: number }) {
  // Accepting or dismissing changes what is drawn, not where: the layout keeps the loaded edges.
  const [changes, setChanges] = useState<Map<string, 'completed' | 'dismissed'>>(new Map())
  const [selected, setSelected] = useState<string | null>(null)
  const [showAll, setShowAll] = useState(false)
  const action = useAction()
  const titles = useMemo(() => new Map(data.nodes.map((n) => [n.id, n.title])), [data])
  const edges = useMemo(
    () =>
      data.edges
        .filter((e) => changes.get(e.id) !== 'dismissed')
        .map((e) => (changes.has(e.id) ? { ...e, status: changes.get(e.id)! } : e)),
    [data, changes],
  )
  const pending = edges.filter((e) => e.status === 'pending')
  const chosen = edges.find((e) => e.id === selected) ?? null

  const decide = async (edge: GraphEdge, accept: boolean) => {
    const path = { params: { path: { id: edge.source, targetId: edge.target } } }
    const ok = await action.run(async () => {
      if (accept)
        await unwrap(api.POST('/api/documents/{id}/link', { params: { path: { id: edge.source } }, body: { target_id: edge.target } }))
      else await done(api.DELETE('/api/documents/{id}/links/{targetId}', path))
      return true
    })
    if (!ok) return
    setChanges(new Map(changes).set(edge.id, accept ? 'completed' : 'dismissed'))
    if (!accept) setSelected(null)
    const names = `${titles.get(edge.source)} and ${titles.get(edge.target)}`
    announce(
      accept
        ? `Linked ${names}`
        : edge.status === 'pending'
          ? `Suggestion dismissed: ${names} will not be suggested again`
          : `Unlinked ${names}`,
    )
  }

  if (!data.nodes.length)
    return (
      <Empty>
        <p>No documents in this workspace yet: the graph draws them and the links between them.</p>
        <Link href="/app/documents/new">Add documents</Link>
      </Empty>
    )
  return (
    <>
      <p class="summary">
        {plural(data.nodes.length, 'document')}, {plural(edges.length - pending.length, 'link')}, {plural(pending.length, 'suggestion')}
        {' · '}
        <span class="legend">
          <span class="swatch doc" aria-hidden="true" /> document <span class="swatch memory" aria-hidden="true" /> memory{' '}
          <span class="swatch dashed" aria-hidden="true" /> suggestion (score)
        </span>
      </p>
      {data.truncated && (
        <p class="notice">
          Truncated: showing the {data.nodes.length.toLocaleString()} most recently updated documents; this workspace has more.
          {limit < 2000 ? ' Choose more above (up to 2,000).' : ''}
        </p>
      )}
      <GraphCanvas
        nodes={data.nodes}
        layoutEdges={data.edges}
        edges={edges}
        selected={selected}
        onOpen={(node) => navigate(`/app/documents/${node.id}`)}
        onSelect={(edge) => setSelected(edge?.id ?? null)}
      />
      <p class="hint">Drag to move, scroll or use the buttons to zoom; click a dot to open its document, a line to act on it.</p>
      <ActionStatus action={action} />
      {chosen && (
        <section class="card edge-panel" aria-labelledby="edge-heading">
          <h2 id="edge-heading">
            {chosen.status === 'pending'
              ? `Suggested link · score ${formatScore(chosen.score)}`
              : `Link · score ${formatScore(chosen.score)}`}
          </h2>
          <p>
            <Link href={`/app/documents/${chosen.source}`}>{titles.get(chosen.source) ?? chosen.source}</Link> ↔{' '}
            <Link href={`/app/documents/${chosen.target}`}>{titles.get(chosen.target) ?? chosen.target}</Link>
          </p>
          <div class="row">
            {chosen.status === 'pending' && (
              <button type="button" class="primary" disabled={action.busy} onClick={() => decide(chosen, true)}>
                Accept link
              </button>
            )}
            <button type="button" class="danger" disabled={action.busy} onClick={() => decide(chosen, false)}>
              {chosen.status === 'pending' ? 'Dismiss suggestion' : 'Remove link'}
            </button>
            <button type="button" class="quiet" onClick={() => setSelected(null)}>
              Close
            </button>
          </div>
        </section>
      )}
      <section aria-labelledby="suggestions-heading">
        <h2 id="suggestions-heading">Suggestions</h2>
        {pending.length === 0 ? (
          <p class="hint">No pending suggestions: related documents are suggested once they are embedded.</p>
        ) : (
          <>
            <table class="suggestions">
              <caption class="visually-hidden">Suggested links, best first</caption>
              <thead>
                <tr>
                  <th scope="col">Between</th>
                  <th scope="col">Score</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {(showAll ? pending : pending.slice(0, 50)).map((e) => {
                  const names = `${titles.get(e.source)} and ${titles.get(e.target)}`
                  return (
                    <tr key={e.id} class={e.id === selected ? 'selected' : ''}>
                      <td>
                        <Link href={`/app/documents/${e.source}`}>{titles.get(e.source)}</Link> ↔{' '}
                        <Link href={`/app/documents/${e.target}`}>{titles.get(e.target)}</Link>
                      </td>
                      <td>{formatScore(e.score)}</td>
                      <td>
                        <div class="row">
                          <button
                            type="button"
                            disabled={action.busy}
                            onClick={() => decide(e, true)}
                            aria-label={`Accept the link between ${names}`}
                          >
                            Accept
                          </button>
                          <button
                            type="button"
                            disabled={action.busy}
                            onClick={() => decide(e, false)}
                            aria-label={`Dismiss the suggestion between ${names}`}
                          >
                            Dismiss
                          </button>
                        </div>
                      </td>
                    </tr>
                  )
                })}
              </tbody>
            </table>
            {pending.length > 50 && !showAll && (
              <button type="button" onClick={() => setShowAll(true)}>
                Show all {pending.length.toLocaleString()}
              </button>
            )}
          </>
        )}
      </section>
      <details class="graph-documents">
        <summary>All {plural(data.nodes.length, 'document')} in the graph</summary>
        <NodeList nodes={data.nodes} edges={edges} />
      </details>
    </>
  )
}

/** The nodes as a list of links, most connected first: the keyboard way to open any of them. */
function NodeList({ nodes, edges }: { nodes: GraphNode[]; edges: GraphEdge[] }) {
  const degree = new Map<string, number>()
  for (const e of edges) for (const id of [e.source, e.target]) degree.set(id, (degree.get(id) ?? 0) + 1)
  const sorted = [...nodes].sort((a, b) => (degree.get(b.id) ?? 0) - (degree.get(a.id) ?? 0))
  return (
    <ul class="node-list">
      {sorted.map((n) => (
        <li key={n.id}>
          <Link href={`/app/documents/${n.id}`}>{n.title}</Link>{' '}
          <span class="meta">
            {n.kind} · {plural(degree.get(n.id) ?? 0, 'link')}
          </span>
        </li>
      ))}
    </ul>
  )
}
