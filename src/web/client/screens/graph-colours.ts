// What the graph's colours mean: a node's palette slot (0–7, 8 = everything else) by its kind or by its tag, and
// the legend that says so with a count for each. Kinds have fixed slots (the same colour on every graph); tags
// take the eight most used, most used first.
import { KINDS } from '../lib/kinds'
import type { GraphNode } from './graph-canvas'

export const COLOUR_BY = ['kind', 'tag'] as const
export type ColourBy = (typeof COLOUR_BY)[number]
export const OTHER = 8

export interface LegendEntry {
  slot: number
  label: string
  count: number
}
export interface Colours {
  colorOf(node: GraphNode): number
  legend: LegendEntry[]
}

export function coloursBy(by: ColourBy, nodes: GraphNode[]): Colours {
  const documents = nodes.filter((n) => !n.conversation)
  if (by === 'kind') {
    const slotOf = (n: GraphNode) => {
      const i = (KINDS as readonly string[]).indexOf(n.kind)
      return i < 0 ? OTHER : i
    }
    const counts = countBy(documents, (n) => slotOf(n))
    const legend = [...counts]
      .sort(([a], [b]) => a - b)
      .map(([slot, count]) => ({ slot, label: slot === OTHER ? 'other kind' : KINDS[slot]!, count }))
    return { colorOf: (n) => (n.conversation ? OTHER : slotOf(n)), legend }
  }
  const tagCounts = new Map<string, number>()
  for (const n of documents) for (const tag of n.tags ?? []) tagCounts.set(tag, (tagCounts.get(tag) ?? 0) + 1)
  const top = [...tagCounts].sort(([a, x], [b, y]) => y - x || a.localeCompare(b)).slice(0, OTHER)
  const slots = new Map(top.map(([tag], i) => [tag, i]))
  // A node with several tags takes the colour of its most used one.
  const slotOf = (n: GraphNode) => Math.min(OTHER, ...(n.tags ?? []).map((t) => slots.get(t) ?? OTHER))
  const counts = countBy(documents, slotOf)
  const legend = top.map(([tag], slot) => ({ slot, label: tag, count: counts.get(slot) ?? 0 })).filter((e) => e.count > 0)
  const rest = counts.get(OTHER)
  if (rest) legend.push({ slot: OTHER, label: top.length ? 'other tags or none' : 'no tag', count: rest })
  return { colorOf: (n) => (n.conversation ? OTHER : slotOf(n)), legend }
}

function countBy<T>(items: T[], key: (item: T) => number): Map<number, number> {
  const counts = new Map<number, number>()
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1)
  return counts
}
