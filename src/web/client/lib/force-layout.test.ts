// The graph's layout: linked documents end up near each other, unlinked ones apart, no node lost to NaN, and
// a few thousand nodes finish in a bounded number of steps.
import { describe, expect, test } from 'bun:test'
import { distanceToSegment2, ForceLayout, mostConnected, neighbourhood } from './force-layout'

const distance = (l: ForceLayout, a: number, b: number) => Math.hypot(l.x[a]! - l.x[b]!, l.y[a]! - l.y[b]!)

describe('ForceLayout', () => {
  test('pulls linked nodes together and keeps the others apart', () => {
    // Two triangles: 0-1-2 and 3-4-5, nothing between them.
    const l = new ForceLayout(6, [
      { source: 0, target: 1 },
      { source: 1, target: 2 },
      { source: 2, target: 0 },
      { source: 3, target: 4 },
      { source: 4, target: 5 },
      { source: 5, target: 3 },
    ])
    while (l.run(1000)) {}
    expect(l.done).toBe(true)
    const within = Math.max(distance(l, 0, 1), distance(l, 1, 2), distance(l, 3, 4), distance(l, 4, 5))
    const across = Math.min(distance(l, 0, 3), distance(l, 1, 4), distance(l, 2, 5))
    expect(within).toBeLessThan(across)
    // No two nodes on one spot.
    for (let i = 0; i < 6; i++) for (let j = i + 1; j < 6; j++) expect(distance(l, i, j)).toBeGreaterThan(5)
  })

  test('lays out 3,000 nodes in at most its step budget, every position a number', () => {
    const edges = Array.from({ length: 2999 }, (_, i) => ({ source: i, target: i + 1 }))
    const l = new ForceLayout(3000, edges, 36, 120)
    let calls = 0
    while (l.run(50)) calls++
    expect(l.done).toBe(true)
    expect(calls).toBeLessThanOrEqual(120)
    expect([...l.x, ...l.y].every(Number.isFinite)).toBe(true)
    const { minX, maxX } = l.bounds()
    expect(maxX - minX).toBeGreaterThan(100)
  })

  test('distanceToSegment2 measures to the nearest point of the segment', () => {
    expect(distanceToSegment2(5, 3, 0, 0, 10, 0)).toBe(9)
    expect(distanceToSegment2(-4, 3, 0, 0, 10, 0)).toBe(25)
  })
})

describe('which nodes are labelled and highlighted', () => {
  // A star around 2 (four edges), a pair 5–6, and 7 alone.
  const edges = [0, 1, 3, 4].map((i) => ({ source: 2, target: i })).concat([{ source: 5, target: 6 }])

  test('the most connected come first, ties by order, and a node without links is never among them', () => {
    expect(mostConnected(8, edges, 3)).toEqual([2, 0, 1])
    expect(mostConnected(8, edges, 100)).toEqual([2, 0, 1, 3, 4, 5, 6])
  })

  test("a node's neighbourhood is itself and the nodes one edge away, whichever end it is", () => {
    expect([...neighbourhood(2, edges)].sort()).toEqual([0, 1, 2, 3, 4])
    expect([...neighbourhood(6, edges)].sort()).toEqual([5, 6])
    expect([...neighbourhood(7, edges)]).toEqual([7])
  })
})
