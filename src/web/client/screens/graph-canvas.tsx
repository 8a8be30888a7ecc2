// The graph drawn on a canvas (one element, fast at a few thousand nodes): laid out by lib/force-layout.ts a
// slice per frame, pan by dragging, zoom by wheel or buttons; a click on a node focuses it (its neighbourhood
// drawn, the rest faded), a click on a link selects it. Nodes take the colour the screen chooses (by kind or
// tag); suggestions are dashed with their score, evidence dotted, a conversation a square. Titles are drawn as
// canvas text for the most connected nodes, the focused neighbourhood and the one under the pointer. The lists
// beside it are the keyboard way.
import { useEffect, useRef } from 'preact/hooks'
import { distanceToSegment2, ForceLayout, type LayoutEdge, neighbourhood } from '../lib/force-layout'
import { formatScore } from '../lib/format'

export interface GraphNode {
  id: string
  title: string
  kind: string
  pinned: boolean
  tags?: string[]
  /** A conversation a memory was drafted from (not a document): drawn as a square. */
  conversation?: 'thread' | 'chat'
}
export interface GraphEdge {
  id: string
  source: string
  target: string
  score: number
  /** pending | completed (links), or evidence | supersedes (what a memory came from; never selected). */
  status: string
}

interface Props {
  nodes: GraphNode[]
  /** The edges the layout pulls together (kept while statuses change, so accepting does not redraw the map). */
  layoutEdges: GraphEdge[]
  /** The edges drawn, with their current statuses. */
  edges: GraphEdge[]
  selected: string | null
  focused: string | null
  /** Palette slot (0–7, 8 = other) of each node: the legend's colours (--graph-0 … --graph-8). */
  colorOf(node: GraphNode): number
  /** Nodes whose titles are always drawn. */
  labelled: Set<string>
  onFocus(node: GraphNode | null): void
  onSelect(edge: GraphEdge | null): void
}

const RADIUS = 6
export const isEvidence = (edge: { status: string }) => edge.status === 'evidence' || edge.status === 'supersedes'

interface View {
  scale: number
  ox: number
  oy: number
}

export function GraphCanvas(props: Props) {
  const { nodes, layoutEdges, edges, selected, focused } = props
  const canvas = useRef<HTMLCanvasElement>(null)
  const layout = useRef<ForceLayout | undefined>(undefined)
  const view = useRef<View>({ scale: 1, ox: 0, oy: 0 })
  const fitted = useRef(false)
  const hover = useRef<number | null>(null)
  const latest = useRef(props)
  latest.current = props
  const index = useRef(new Map<string, number>())

  const draw = () => {
    const element = canvas.current
    const l = layout.current
    if (!element || !l) return
    paint(element, l, view.current, index.current, latest.current, hover.current)
  }
  const fit = () => {
    const element = canvas.current
    const l = layout.current
    if (!element || !l) return
    const { minX, minY, maxX, maxY } = l.bounds()
    const width = element.clientWidth
    const height = element.clientHeight
    // Titles are drawn to the right of their dots when there are few nodes: leave room for them there.
    const labels = l.count <= 60 ? Math.min(170, width * 0.4) : 0
    const pad = 30
    const scale = Math.min(2.5, (width - 2 * pad - labels) / Math.max(1, maxX - minX), (height - 2 * pad) / Math.max(1, maxY - minY))
    const left = (width - labels - (maxX - minX) * scale) / 2
    view.current = { scale, ox: left - minX * scale, oy: height / 2 - ((minY + maxY) / 2) * scale }
    draw()
  }
  const zoom = (factor: number, cx?: number, cy?: number) => {
    const element = canvas.current
    if (!element) return
    const v = view.current
    const x = cx ?? element.clientWidth / 2
    const y = cy ?? element.clientHeight / 2
    const scale = Math.max(0.05, Math.min(8, v.scale * factor))
    view.current = { scale, ox: x - ((x - v.ox) * scale) / v.scale, oy: y - ((y - v.oy) * scale) / v.scale }
    fitted.current = true
    draw()
  }

  // A new set of nodes: a new layout, run a slice per animation frame, fitted to the canvas as it spreads.
  useEffect(() => {
    index.current = new Map(nodes.map((n, i) => [n.id, i]))
    const pairs = layoutEdges.flatMap((e) => {
      const source = index.current.get(e.source)
      const target = index.current.get(e.target)
      return source === undefined || target === undefined ? [] : [{ source, target }]
    })
    const l = new ForceLayout(nodes.length, pairs)
    layout.current = l
    fitted.current = false
    canvas.current?.removeAttribute('data-settled')
    let frame = 0
    const tick = () => {
      const more = l.run(12)
      if (!fitted.current) fit()
      else draw()
      if (more) frame = requestAnimationFrame(tick)
      else centre(), canvas.current?.setAttribute('data-settled', 'true')
    }
    frame = requestAnimationFrame(tick)
    return () => cancelAnimationFrame(frame)
  }, [nodes, layoutEdges])

  useEffect(draw, [edges, selected, focused, props.colorOf, props.labelled])

  // A node focused from the list (or the URL) may be off the canvas: bring it to the middle, at the same zoom.
  const centre = () => {
    const element = canvas.current
    const l = layout.current
    const i = latest.current.focused ? index.current.get(latest.current.focused) : undefined
    if (!element || !l || i === undefined) return
    const v = view.current
    const x = l.x[i]! * v.scale + v.ox
    const y = l.y[i]! * v.scale + v.oy
    const margin = 40
    if (x > margin && y > margin && x < element.clientWidth - margin && y < element.clientHeight - margin) return
    view.current = { ...v, ox: element.clientWidth / 2 - l.x[i]! * v.scale, oy: element.clientHeight / 2 - l.y[i]! * v.scale }
    fitted.current = true
    draw()
  }
  useEffect(centre, [focused])

  // Size the backing store to the element (and the screen's pixel ratio) whenever the element changes size.
  useEffect(() => {
    const element = canvas.current
    if (!element) return
    const observer = new ResizeObserver(() => {
      const ratio = devicePixelRatio || 1
      element.width = Math.round(element.clientWidth * ratio)
      element.height = Math.round(element.clientHeight * ratio)
      if (!fitted.current) fit()
      else draw()
    })
    observer.observe(element)
    // For tests and tools: where a node is drawn, in the page's coordinates.
    Object.assign(element, {
      graphPoint(id: string) {
        const i = index.current.get(id)
        const l = layout.current
        if (i === undefined || !l) return null
        const box = element.getBoundingClientRect()
        const v = view.current
        return { x: box.left + l.x[i]! * v.scale + v.ox, y: box.top + l.y[i]! * v.scale + v.oy }
      },
    })
    return () => observer.disconnect()
  }, [])

  const pick = (px: number, py: number): { node?: number; edge?: GraphEdge } => {
    const l = layout.current
    if (!l) return {}
    const v = view.current
    const x = (px - v.ox) / v.scale
    const y = (py - v.oy) / v.scale
    const reach = Math.max(RADIUS + 3, 9 / v.scale)
    let best = -1
    let bestD = reach * reach
    for (let i = 0; i < l.count; i++) {
      const d = (l.x[i]! - x) ** 2 + (l.y[i]! - y) ** 2
      if (d <= bestD) (best = i), (bestD = d)
    }
    if (best >= 0) return { node: best }
    const near = 7 / v.scale
    let edge: GraphEdge | undefined
    let edgeD = near * near
    for (const e of latest.current.edges) {
      if (isEvidence(e)) continue
      const a = index.current.get(e.source)
      const b = index.current.get(e.target)
      if (a === undefined || b === undefined) continue
      const d = distanceToSegment2(x, y, l.x[a]!, l.y[a]!, l.x[b]!, l.y[b]!)
      if (d <= edgeD) (edge = e), (edgeD = d)
    }
    return { edge }
  }

  const drag = useRef<{ x: number; y: number; moved: boolean } | null>(null)
  const local = (e: PointerEvent | WheelEvent) => {
    const box = canvas.current!.getBoundingClientRect()
    return [e.clientX - box.left, e.clientY - box.top] as const
  }
  const down = (e: PointerEvent) => {
    drag.current = { x: e.clientX, y: e.clientY, moved: false }
    canvas.current?.setPointerCapture(e.pointerId)
  }
  const move = (e: PointerEvent) => {
    const d = drag.current
    if (d) {
      if (!d.moved && Math.hypot(e.clientX - d.x, e.clientY - d.y) < 4) return
      d.moved = true
      view.current = { ...view.current, ox: view.current.ox + e.clientX - d.x, oy: view.current.oy + e.clientY - d.y }
      d.x = e.clientX
      d.y = e.clientY
      fitted.current = true
      draw()
      return
    }
    const hit = pick(...local(e))
    const next = hit.node ?? null
    canvas.current!.style.cursor = hit.node !== undefined || hit.edge ? 'pointer' : 'grab'
    if (next !== hover.current) (hover.current = next), draw()
  }
  const up = (e: PointerEvent) => {
    const d = drag.current
    drag.current = null
    if (!d || d.moved) return
    const hit = pick(...local(e))
    if (hit.node !== undefined) return latest.current.onFocus(latest.current.nodes[hit.node]!)
    latest.current.onSelect(hit.edge ?? null)
    if (!hit.edge) latest.current.onFocus(null)
  }
  const wheel = (e: WheelEvent) => {
    e.preventDefault()
    zoom(e.deltaY < 0 ? 1.15 : 1 / 1.15, ...local(e))
  }

  return (
    <div class="graph-frame">
      <canvas
        ref={canvas}
        class="graph-canvas"
        role="img"
        aria-label={`Graph of ${nodes.length} nodes and ${edges.length} edges. The suggestions and documents are also listed below, and a document can be focused from the list.`}
        onPointerDown={down}
        onPointerMove={move}
        onPointerUp={up}
        onPointerLeave={() => ((hover.current = null), draw())}
        onWheel={wheel}
      />
      <div class="graph-zoom" role="group" aria-label="Zoom">
        <button type="button" onClick={() => zoom(1.3)} aria-label="Zoom in">
          +
        </button>
        <button type="button" onClick={() => zoom(1 / 1.3)} aria-label="Zoom out">
          −
        </button>
        <button type="button" onClick={() => ((fitted.current = false), fit())}>
          Fit
        </button>
      </div>
    </div>
  )
}

function paint(element: HTMLCanvasElement, l: ForceLayout, v: View, index: Map<string, number>, p: Props, hover: number | null) {
  const context = element.getContext('2d')
  if (!context) return
  const { nodes, edges, selected } = p
  const style = getComputedStyle(element)
  const color = (name: string) => style.getPropertyValue(name).trim() || '#888'
  const palette = Array.from({ length: 9 }, (_, i) => color(`--graph-${i}`))
  const ratio = element.width / Math.max(1, element.clientWidth)
  context.setTransform(ratio, 0, 0, ratio, 0, 0)
  context.clearRect(0, 0, element.clientWidth, element.clientHeight)
  const at = (i: number) => [l.x[i]! * v.scale + v.ox, l.y[i]! * v.scale + v.oy] as const
  const scores = edges.length <= 150 || v.scale > 1.2
  const focus = p.focused ? index.get(p.focused) : undefined
  const pairs: LayoutEdge[] = []
  for (const e of edges) {
    const a = index.get(e.source)
    const b = index.get(e.target)
    if (a !== undefined && b !== undefined) pairs.push({ source: a, target: b })
  }
  const near = focus === undefined ? null : neighbourhood(focus, pairs)
  const FADED = 0.15

  for (const e of edges) {
    const a = index.get(e.source)
    const b = index.get(e.target)
    if (a === undefined || b === undefined) continue
    const [ax, ay] = at(a)
    const [bx, by] = at(b)
    const pending = e.status === 'pending'
    const evidence = isEvidence(e)
    context.globalAlpha = near && a !== focus && b !== focus ? FADED : 1
    context.beginPath()
    context.setLineDash(pending ? [6, 4] : e.status === 'evidence' ? [1.5, 3] : e.status === 'supersedes' ? [8, 3, 1.5, 3] : [])
    context.lineCap = evidence ? 'round' : 'butt'
    context.strokeStyle =
      e.id === selected ? color('--focus') : pending ? color('--accent') : evidence ? color('--graph-evidence') : color('--muted')
    context.lineWidth = e.id === selected ? 4 : evidence ? 2 : pending ? 1.5 : 1.2
    context.moveTo(ax, ay)
    context.lineTo(bx, by)
    context.stroke()
    if (pending && (scores || e.id === selected)) {
      context.setLineDash([])
      context.font = '11px system-ui, sans-serif'
      context.fillStyle = color('--accent')
      context.fillText(formatScore(e.score), (ax + bx) / 2 + 3, (ay + by) / 2 - 3)
    }
  }
  context.setLineDash([])
  context.lineCap = 'butt'
  const nodeRadius = Math.max(2.5, Math.min(RADIUS * 1.5, RADIUS * v.scale))
  const titles = nodes.length <= 60 || v.scale > 1.6
  const chars = element.clientWidth < 500 ? 16 : 32 // shorter titles on a phone
  const labels: number[] = []
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i]!
    const [x, y] = at(i)
    if (x < -20 || y < -20 || x > element.clientWidth + 20 || y > element.clientHeight + 20) continue
    context.globalAlpha = near && !near.has(i) ? FADED : 1
    context.beginPath()
    const r = i === focus ? nodeRadius * 1.5 : nodeRadius
    if (node.conversation) context.rect(x - r, y - r, r * 2, r * 2)
    else context.arc(x, y, r, 0, Math.PI * 2)
    context.fillStyle = palette[p.colorOf(node)] ?? palette[8]!
    context.fill()
    if (node.pinned || i === hover || i === focus) {
      context.lineWidth = i === focus ? 3 : 2
      context.strokeStyle = i === focus ? color('--focus') : color('--text')
      context.stroke()
    }
    if (titles || i === hover || p.labelled.has(node.id) || near?.has(i)) labels.push(i)
  }
  // Titles last, over every dot and line, each on a halo of the background so it reads across lines.
  context.font = '12px system-ui, sans-serif'
  context.lineJoin = 'round'
  for (const i of labels) {
    const node = nodes[i]!
    const [x, y] = at(i)
    context.globalAlpha = near && !near.has(i) && i !== hover ? FADED : 1
    const text = node.title.length > chars ? `${node.title.slice(0, chars - 1)}…` : node.title
    context.lineWidth = 3
    context.strokeStyle = color('--surface')
    context.strokeText(text, x + nodeRadius + 3, y + 4)
    context.fillStyle = color('--text')
    context.fillText(text, x + nodeRadius + 3, y + 4)
  }
  context.globalAlpha = 1
}
