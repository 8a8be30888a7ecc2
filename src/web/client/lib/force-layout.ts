// A small force-directed layout (Fruchterman–Reingold) for the graph screen, fast enough for a few thousand
// nodes: repulsion only between nodes in neighbouring grid cells (O(n) per step instead of O(n²)), springs
// along edges, a gentle pull to the centre, and a temperature that caps each move and cools every step.
// Deterministic (a sunflower spiral to start), so the same graph is drawn the same way each time.

export interface LayoutEdge {
  source: number
  target: number
}

const GOLDEN_ANGLE = Math.PI * (3 - Math.sqrt(5))

export class ForceLayout {
  readonly x: Float64Array
  readonly y: Float64Array
  private readonly dx: Float64Array
  private readonly dy: Float64Array
  private temperature: number
  private steps = 0

  constructor(
    readonly count: number,
    private readonly edges: LayoutEdge[],
    /** The preferred distance between linked nodes, in layout units. */
    private readonly k = 36,
    private readonly maxSteps = 300,
  ) {
    this.x = new Float64Array(count)
    this.y = new Float64Array(count)
    this.dx = new Float64Array(count)
    this.dy = new Float64Array(count)
    for (let i = 0; i < count; i++) {
      const r = k * 0.7 * Math.sqrt(i + 0.5)
      this.x[i] = r * Math.cos(i * GOLDEN_ANGLE)
      this.y[i] = r * Math.sin(i * GOLDEN_ANGLE)
    }
    this.temperature = k * 3
  }

  get done(): boolean {
    return this.steps >= this.maxSteps || this.temperature < 0.05 * this.k || this.count < 2
  }

  /** Runs steps until done or `budgetMs` has passed; answers whether there is more to do. */
  run(budgetMs: number, now: () => number = () => performance.now()): boolean {
    const end = now() + budgetMs
    while (!this.done) {
      this.step()
      if (now() >= end) break
    }
    return !this.done
  }

  step(): void {
    const { x, y, dx, dy, k, count } = this
    dx.fill(0)
    dy.fill(0)
    this.repel()
    for (const { source: a, target: b } of this.edges) {
      const ex = x[a]! - x[b]!
      const ey = y[a]! - y[b]!
      const d = Math.hypot(ex, ey) || 0.01
      const f = d / k // d²/k along the unit vector
      dx[a]! -= ex * f
      dy[a]! -= ey * f
      dx[b]! += ex * f
      dy[b]! += ey * f
    }
    const gravity = 0.02
    for (let i = 0; i < count; i++) {
      dx[i]! -= x[i]! * gravity
      dy[i]! -= y[i]! * gravity
      const d = Math.hypot(dx[i]!, dy[i]!)
      if (d > 0) {
        const move = Math.min(d, this.temperature) / d
        x[i]! += dx[i]! * move
        y[i]! += dy[i]! * move
      }
    }
    this.temperature *= 0.97
    this.steps++
  }

  /** k²/d between nodes closer than two cells; the grid keeps each node's neighbours few. */
  private repel(): void {
    const { x, y, dx, dy, count } = this
    const cell = this.k * 2
    const k2 = this.k * this.k
    const grid = new Map<number, number[]>()
    const keyOf = (cx: number, cy: number) => cx * 73856093 + cy * 19349663
    for (let i = 0; i < count; i++) {
      const key = keyOf(Math.floor(x[i]! / cell), Math.floor(y[i]! / cell))
      const bucket = grid.get(key)
      if (bucket) bucket.push(i)
      else grid.set(key, [i])
    }
    for (let i = 0; i < count; i++) {
      const cx = Math.floor(x[i]! / cell)
      const cy = Math.floor(y[i]! / cell)
      for (let ox = -1; ox <= 1; ox++)
        for (let oy = -1; oy <= 1; oy++) {
          const bucket = grid.get(keyOf(cx + ox, cy + oy))
          if (!bucket) continue
          for (const j of bucket) {
            if (j <= i) continue
            let ex = x[i]! - x[j]!
            let ey = y[i]! - y[j]!
            let d2 = ex * ex + ey * ey
            if (d2 > cell * cell) continue
            if (d2 < 1e-4) {
              // Two nodes on the same spot: push them apart in a direction fixed by their indices.
              ex = Math.cos(i + j)
              ey = Math.sin(i + j)
              d2 = 1
            }
            const f = k2 / d2 // k²/d along the unit vector (ex/d): k²·ex/d²
            dx[i]! += ex * f
            dy[i]! += ey * f
            dx[j]! -= ex * f
            dy[j]! -= ey * f
          }
        }
    }
  }

  /** The smallest box holding every node. */
  bounds(): { minX: number; minY: number; maxX: number; maxY: number } {
    let minX = Infinity
    let minY = Infinity
    let maxX = -Infinity
    let maxY = -Infinity
    for (let i = 0; i < this.count; i++) {
      minX = Math.min(minX, this.x[i]!)
      maxX = Math.max(maxX, this.x[i]!)
      minY = Math.min(minY, this.y[i]!)
      maxY = Math.max(maxY, this.y[i]!)
    }
    return this.count ? { minX, minY, maxX, maxY } : { minX: 0, minY: 0, maxX: 0, maxY: 0 }
  }
}

/** The squared distance from point p to the segment a–b (for picking an edge under the pointer). */
export function distanceToSegment2(px: number, py: number, ax: number, ay: number, bx: number, by: number): number {
  const vx = bx - ax
  const vy = by - ay
  const len2 = vx * vx + vy * vy
  const t = len2 ? Math.max(0, Math.min(1, ((px - ax) * vx + (py - ay) * vy) / len2)) : 0
  const cx = ax + t * vx - px
  const cy = ay + t * vy - py
  return cx * cx + cy * cy
}

/** The `n` nodes with the most edges, most first (ties: the lower index first); nodes without any are left out. */
export function mostConnected(count: number, edges: LayoutEdge[], n: number): number[] {
  const degree = new Uint32Array(count)
  for (const { source, target } of edges) degree[source]!++, degree[target]!++
  return Array.from({ length: count }, (_, i) => i)
    .filter((i) => degree[i]! > 0)
    .sort((a, b) => degree[b]! - degree[a]! || a - b)
    .slice(0, n)
}

/** The nodes one edge away from `node`, itself included. */
export function neighbourhood(node: number, edges: LayoutEdge[]): Set<number> {
  const near = new Set([node])
  for (const { source, target } of edges) {
    if (source === node) near.add(target)
    if (target === node) near.add(source)
  }
  return near
}
