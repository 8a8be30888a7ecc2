// The graph screen's panels: the focused node (its neighbours, a link to open it) with a picker that focuses any
// node from the keyboard, and the form that accepts every suggestion at or above a score in one call.
import { useState } from 'preact/hooks'
import { api, unwrap } from '../api/client'
import { announce } from '../lib/announce'
import { formatScore, plural } from '../lib/format'
import { useAction } from '../lib/use-api'
import { Link } from '../ui/link'
import { ActionStatus } from '../ui/states'
import type { GraphEdge, GraphNode } from './graph-canvas'

/** Where a node opens: a document on its page, a thread in Conversations, an ask conversation in Ask. */
export const nodeHref = (node: GraphNode) =>
  node.conversation === 'thread'
    ? `/app/conversations/${node.id}`
    : node.conversation === 'chat'
      ? `/app/ask/${node.id}`
      : `/app/documents/${node.id}`

const RELATION: Record<string, string> = {
  completed: 'link',
  pending: 'suggestion',
  evidence: 'evidence',
  supersedes: 'supersedes',
}

export function FocusPanel({
  node,
  nodes,
  edges,
  onFocus,
}: {
  node: GraphNode
  nodes: Map<string, GraphNode>
  edges: GraphEdge[]
  onFocus(id: string | null): void
}) {
  const near = edges.flatMap((e) => {
    const other = e.source === node.id ? e.target : e.target === node.id ? e.source : null
    const found = other ? nodes.get(other) : undefined
    return found ? [{ edge: e, node: found }] : []
  })
  return (
    <section class="card focus-panel" aria-labelledby="focus-heading">
      <h2 id="focus-heading">
        <span class="visually-hidden">Focused: </span>
        {node.title}
      </h2>
      <p class="meta">
        <span>{node.conversation ? 'conversation' : node.kind}</span>
        <span>{plural(near.length, 'neighbour')}</span>
      </p>
      <div class="row">
        <Link href={nodeHref(node)} class="button primary">
          {node.conversation ? 'Open the conversation' : 'Open the document'}
        </Link>
        <button type="button" class="quiet" onClick={() => onFocus(null)}>
          Clear focus
        </button>
      </div>
      {near.length > 0 && (
        <ul class="neighbours">
          {near.map(({ edge, node: other }) => (
            <li key={edge.id}>
              <button type="button" class="link" onClick={() => onFocus(other.id)}>
                {other.title}
              </button>{' '}
              <span class="meta">
                {RELATION[edge.status] ?? edge.status}
                {edge.status === 'pending' || edge.status === 'completed' ? ` · ${formatScore(edge.score)}` : ''}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}

/** Focus any node from the keyboard: the nodes, most connected first. */
export function FocusPicker({ nodes, focused, onFocus }: { nodes: GraphNode[]; focused: string | null; onFocus(id: string | null): void }) {
  return (
    <label>
      Focus on
      <select value={focused ?? ''} onChange={(e) => onFocus(e.currentTarget.value || null)}>
        <option value="">nothing (the whole graph)</option>
        {nodes.map((n) => (
          <option key={n.id} value={n.id}>
            {n.title}
          </option>
        ))}
      </select>
    </label>
  )
}

/** POST /api/graph/suggestions/accept: the suggestions at or above the score become links; `onAccepted` marks them drawn. */
export function AcceptAbove({
  workspace,
  pending,
  onAccepted,
}: {
  workspace: string
  pending: GraphEdge[]
  onAccepted(min: number): void
}) {
  const [min, setMin] = useState(0.8)
  const action = useAction()
  // Scores are stored as 32-bit reals: compared as the server compares them.
  const above = pending.filter((e) => Math.fround(e.score) >= Math.fround(min)).length
  const accept = async (event: Event) => {
    event.preventDefault()
    const result = await action.run(() =>
      unwrap(api.POST('/api/graph/suggestions/accept', { body: { workspace_id: workspace, min_score: min } })),
    )
    if (!result) return
    onAccepted(min)
    announce(`Accepted ${plural(result.accepted, 'suggestion')} scoring ${formatScore(min)} or more: each is now a link`)
  }
  return (
    <form class="accept-above row" onSubmit={accept}>
      <label>
        Minimum score
        <input
          type="number"
          min={0}
          max={1}
          step={0.05}
          value={min}
          onInput={(e) => {
            const n = Number(e.currentTarget.value)
            if (Number.isFinite(n)) setMin(Math.min(1, Math.max(0, n)))
          }}
        />
      </label>
      <button type="submit" class="primary" disabled={action.busy || above === 0}>
        Accept {plural(above, 'suggestion')} at or above {formatScore(min)}
      </button>
      <ActionStatus action={action} />
    </form>
  )
}
