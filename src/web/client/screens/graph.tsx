// Graph: one workspace's documents and links drawn (graph-canvas.tsx), coloured by kind or tag with a legend,
// memories joined to the conversations and documents they came from, a node focused by a click, the picker or
// ?focus=<id> (its neighbourhood drawn, the rest faded), and the pending suggestions listed to accept or dismiss
// one by one or all above a score at once. Loaded only on this screen.
import { useMemo, useState } from 'preact/hooks'
import { api, done, unwrap } from '../api/client'
import { announce } from '../lib/announce'
import { useOpeningWorkspace } from '../lib/default-workspace'
import { mostConnected } from '../lib/force-layout'
import { formatScore, plural } from '../lib/format'
import { navigate, usePlace, withQuery } from '../lib/router'
import { useAction, useApi } from '../lib/use-api'
import { chooseWorkspace, useWorkspaces } from '../lib/workspaces'
import { Link } from '../ui/link'
import { PageTitle } from '../ui/page'
import { ActionStatus, Empty, Loaded, Loading } from '../ui/states'
import { GraphCanvas, type GraphEdge, type GraphNode } from './graph-canvas'
import { COLOUR_BY, type ColourBy, coloursBy } from './graph-colours'
import { AcceptAbove, FocusPanel, FocusPicker } from './graph-panels'

const LIMITS = [200, 500, 1000, 2000] as const
/** How many of the most connected nodes keep their titles drawn at any zoom. */
const LABELLED = 10
type Graph = NonNullable<ReturnType<typeof useGraph>['data']>

function useGraph(workspace: string, limit: number) {
  return useApi(
    (signal) =>
      workspace
        ? unwrap(api.GET('/api/graph', { params: { query: { workspace_id: workspace, limit } }, signal }))
        : Promise.resolve(undefined),
    [workspace, limit],
  )
}

export function GraphScreen() {
  const { list } = useWorkspaces()
  const { query } = usePlace()
  const limit = LIMITS.find((l) => String(l) === query.get('limit')) ?? 500
  // ?workspace= (a document's "Show in graph") first, else the switcher's choice, else the default of the settings.
  const opening = useOpeningWorkspace()
  const asked = list?.find((w) => w.id === query.get('workspace'))?.id
  const workspace = asked ?? opening
  const graph = useGraph(workspace, limit)
  const focus = query.get('focus')

  if (!list || !workspace) return <Loading />
  return (
    <section class="graph-screen">
      <PageTitle title="Graph" />
      <div class="row options">
        <label>
          Workspace
          <select
            value={workspace}
            onChange={(e) => {
              chooseWorkspace(e.currentTarget.value)
              navigate(withQuery('/app/graph', { limit: query.get('limit') }), { replace: true })
            }}
          >
            {list.map((w) => (
              <option key={w.id} value={w.id}>
                {w.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Documents drawn
          <select
            value={limit}
            onChange={(e) =>
              navigate(
                withQuery('/app/graph', {
                  workspace: asked,
                  focus: new URLSearchParams(location.search).get('focus'),
                  limit: e.currentTarget.value,
                }),
                { replace: true },
              )
            }
          >
            {LIMITS.map((l) => (
              <option key={l} value={l}>
                up to {l.toLocaleString()}
              </option>
            ))}
          </select>
        </label>
      </div>
      <Loaded query={graph}>
        {(data) =>
          data ? <GraphView key={`${workspace}:${limit}`} data={data} limit={limit} workspace={workspace} focus={focus} /> : null
        }
      </Loaded>
    </section>
  )
}

function GraphView({ data, limit, workspace, focus }: { data: Graph; limit: number; workspace: string; focus: string | null }) {
  // Accepting or dismissing changes what is drawn, not where: the layout keeps the loaded edges.
  const [changes, setChanges] = useState<Map<string, 'completed' | 'dismissed'>>(new Map())
  const [selected, setSelected] = useState<string | null>(null)
  const [focused, setFocusedState] = useState<string | null>(focus)
  const [colourBy, setColourBy] = useState<ColourBy>('kind')
  const [showAll, setShowAll] = useState(false)
  const action = useAction()
  const nodes = useMemo<GraphNode[]>(
    () => [...data.nodes, ...data.sources.map((s) => ({ id: s.id, title: s.title, kind: s.kind, pinned: false, conversation: s.kind }))],
    [data],
  )
  const byId = useMemo(() => new Map(nodes.map((n) => [n.id, n])), [nodes])
  const titles = useMemo(() => new Map(nodes.map((n) => [n.id, n.title])), [nodes])
  const evidence = useMemo<GraphEdge[]>(
    () =>
      data.evidence.map((e) => ({ id: `${e.kind}:${e.source}:${e.target}`, source: e.source, target: e.target, score: 0, status: e.kind })),
    [data],
  )
  const layoutEdges = useMemo(() => [...data.edges, ...evidence], [data, evidence])
  const links = useMemo(
    () =>
      data.edges
        .filter((e) => changes.get(e.id) !== 'dismissed')
        .map((e) => (changes.has(e.id) ? { ...e, status: changes.get(e.id)! } : e)),
    [data, changes],
  )
  const edges = useMemo(() => [...links, ...evidence], [links, evidence])
  const pending = links.filter((e) => e.status === 'pending')
  const chosen = links.find((e) => e.id === selected) ?? null
  const colours = useMemo(() => coloursBy(colourBy, nodes), [colourBy, nodes])
  const ranked = useMemo(() => {
    const index = new Map(nodes.map((n, i) => [n.id, i]))
    const pairs = edges.flatMap((e) =>
      index.has(e.source) && index.has(e.target) ? [{ source: index.get(e.source)!, target: index.get(e.target)! }] : [],
    )
    const top = mostConnected(nodes.length, pairs, nodes.length).map((i) => nodes[i]!)
    const rest = nodes.filter((n) => !top.includes(n))
    return { labelled: new Set(top.slice(0, LABELLED).map((n) => n.id)), order: [...top, ...rest] }
  }, [nodes, edges])
  const focusedNode = focused ? byId.get(focused) : undefined

  // The focus is in the URL (replaced, not pushed, and without scrolling) so the view can be linked to.
  const setFocused = (id: string | null) => {
    setFocusedState(id)
    if (id) setSelected(null)
    history.replaceState(null, '', withQuery('/app/graph', { ...Object.fromEntries(new URLSearchParams(location.search)), focus: id }))
    if (id) announce(`Focused on ${titles.get(id) ?? 'a node'}: its neighbours are highlighted`)
  }
  const acceptedAbove = (min: number) => {
    const next = new Map(changes)
    for (const e of pending) if (Math.fround(e.score) >= Math.fround(min)) next.set(e.id, 'completed')
    setChanges(next)
  }

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
        {plural(data.nodes.length, 'document')}, {plural(links.length - pending.length, 'link')}, {plural(pending.length, 'suggestion')}
        {data.sources.length > 0 && <> · memories drawn from {plural(data.sources.length, 'conversation')}</>}
      </p>
      {data.truncated && (
        <p class="notice">
          Truncated: showing the {data.nodes.length.toLocaleString()} most recently updated documents; this workspace has more.
          {limit < 2000 ? ' Choose more above (up to 2,000).' : ''}
        </p>
      )}
      <div class="row options graph-controls">
        <label>
          Colour by
          <select value={colourBy} onChange={(e) => setColourBy(e.currentTarget.value as ColourBy)}>
            {COLOUR_BY.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </label>
        <FocusPicker nodes={ranked.order} focused={focusedNode ? focused : null} onFocus={setFocused} />
      </div>
      <ul class="graph-legend" aria-label={`Colours: by ${colourBy}`}>
        {colours.legend.map((entry) => (
          <li key={entry.slot}>
            <span class={`swatch g-${entry.slot}`} aria-hidden="true" /> {entry.label}{' '}
            <span class="count">{entry.count.toLocaleString()}</span>
          </li>
        ))}
        <li>
          <span class="line link" aria-hidden="true" /> link
        </li>
        <li>
          <span class="line suggestion" aria-hidden="true" /> suggestion (score)
        </li>
        <li>
          <span class="line evidence" aria-hidden="true" /> evidence of a memory
        </li>
        {data.sources.length > 0 && (
          <li>
            <span class="swatch square g-8" aria-hidden="true" /> conversation
          </li>
        )}
      </ul>
      <GraphCanvas
        nodes={nodes}
        layoutEdges={layoutEdges}
        edges={edges}
        selected={selected}
        focused={focusedNode ? focused : null}
        colorOf={colours.colorOf}
        labelled={ranked.labelled}
        onFocus={(node) => setFocused(node?.id ?? null)}
        onSelect={(edge) => setSelected(edge?.id ?? null)}
      />
      <p class="hint">
        Drag to move, scroll or use the buttons to zoom; click a dot to focus it and its neighbours, a line to act on it. Titles show for
        the {LABELLED} most connected, the focused and the one under the pointer.
      </p>
      {focusedNode && <FocusPanel node={focusedNode} nodes={byId} edges={edges} onFocus={setFocused} />}
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
            <AcceptAbove workspace={workspace} pending={pending} onAccepted={acceptedAbove} />
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
        <NodeList nodes={data.nodes} edges={links} />
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
