// BM25 over an in-memory copy of a user's keyword index (see keyword-memory.ts for how copies are kept
// current): the same ranking as the SQL in keyword.ts, over typed arrays.
import { B, K1, PREFIX_WEIGHT, type KeywordHit, type QueryTerm } from './keyword'

/** What a search restricts to — the same conditions as its SQL filter: `status = 'active'` and these. */
export interface MemoryFilter {
  workspaceId?: string
  kind?: string
  source?: string
  tag?: string
  excludeDocument?: string
  /** Only this document, whatever its status (a more-like-this query scoring its own document). */
  onlyDocument?: string
}

/** tf is a Postgres real, so Float32 holds it exactly: 8 bytes a posting. */
export interface PostingList {
  docs: Int32Array
  tf: Float32Array
}

export interface UserIndex {
  version: number
  /** BM25 corpus: documents with keyword length > 0 (every status) and their average length, as keyword_stats says. */
  n: number
  avgdl: number
  ids: string[]
  dl: Float64Array
  active: Uint8Array
  pinned: Uint8Array
  rating: Int8Array
  workspace: string[]
  kind: string[]
  source: string[]
  tags: string[][]
  terms: Map<string, PostingList>
  /** Terms in code-unit order, for prefix ranges. */
  sorted: string[]
  postings: number
}

/** First index of `sorted` not below `key`. */
function lowerBound(sorted: string[], key: string): number {
  let [lo, hi] = [0, sorted.length]
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (sorted[mid]! < key) lo = mid + 1
    else hi = mid
  }
  return lo
}

/**
 * BM25 over the copy, exactly as keywordSearch's SQL: df counted over every posting of the term, exact terms at
 * weight 1, longer terms under the last word's prefixes at PREFIX_WEIGHT with the df of the whole word (never a
 * term the query has exactly), each word counted once per document (its best-scoring form), documents
 * matching every word first, then score × boost, then id.
 */
export function searchUserIndex(index: UserIndex, terms: QueryTerm[], filter: MemoryFilter, limit: number): KeywordHit[] {
  const words = new Set(terms.map((t) => t.idx)).size
  if (words === 0) return []
  const count = index.ids.length
  const score = new Float64Array(count)
  const maskLo = new Uint32Array(count)
  const maskHi = new Uint32Array(count)
  const touched: number[] = []
  const exact = new Set(terms.filter((t) => !t.prefix).map((t) => t.term))
  const idf = (df: number) => Math.log(1 + (index.n - df + 0.5) / (df + 0.5))

  const bit = (idx: number): [number, number] => (idx < 32 ? [(1 << idx) >>> 0, 0] : [0, (1 << (idx - 32)) >>> 0])
  const tfPart = (tf: number, d: number) => (tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * index.dl[d]!) / index.avgdl))
  const credit = (d: number, s: number, [lo, hi]: [number, number]) => {
    if (maskLo[d] === 0 && maskHi[d] === 0) touched.push(d)
    score[d]! += s
    maskLo[d]! |= lo
    maskHi[d]! |= hi
  }

  // Each word's forms: its exact term and the expansions of its prefixes (each expansion once).
  const forms = new Map<number, { exact: PostingList[]; prefixed: Map<string, PostingList> }>()
  const formsOf = (idx: number) => forms.get(idx) ?? forms.set(idx, { exact: [], prefixed: new Map() }).get(idx)!
  for (const t of terms) {
    if (!t.prefix) {
      const list = index.terms.get(t.term)
      if (list) formsOf(t.idx).exact.push(list)
      continue
    }
    for (let i = lowerBound(index.sorted, t.term); i < index.sorted.length; i++) {
      const candidate = index.sorted[i]!
      if (!candidate.startsWith(t.term)) break
      if (candidate.length > t.term.length && !exact.has(candidate)) formsOf(t.idx).prefixed.set(candidate, index.terms.get(candidate)!)
    }
  }

  let best: Float64Array | undefined // the word's best form per document, while one word with forms is scored
  let held: Uint8Array | undefined
  for (const [idx, { exact: exactLists, prefixed }] of forms) {
    const mask = bit(idx)
    if (prefixed.size === 0) {
      // One form only (the common case): every posting is the word's one contribution to its document.
      for (const list of exactLists) {
        const weight = idf(list.docs.length)
        for (let i = 0; i < list.docs.length; i++) credit(list.docs[i]!, weight * tfPart(list.tf[i]!, list.docs[i]!), mask)
      }
      continue
    }
    // Several forms: the word's df is that of every document holding any of them, and each document keeps its best.
    best ??= new Float64Array(count).fill(-Infinity)
    held ??= new Uint8Array(count)
    const lists = [...exactLists.map((list) => ({ list, prefix: false })), ...[...prefixed.values()].map((list) => ({ list, prefix: true }))]
    const holders: number[] = []
    for (const { list } of lists) for (const d of list.docs) if (!held[d]) (held[d] = 1), holders.push(d)
    const wordIdf = idf(holders.length)
    for (const { list, prefix } of lists) {
      const weight = prefix ? PREFIX_WEIGHT * wordIdf : idf(list.docs.length)
      for (let i = 0; i < list.docs.length; i++) {
        const d = list.docs[i]!
        const s = weight * tfPart(list.tf[i]!, d)
        if (best[d]! < s) best[d] = s
      }
    }
    for (const d of holders) {
      credit(d, best[d]!, mask)
      best[d] = -Infinity
      held[d] = 0
    }
  }

  const full = (words >= 32 ? [2 ** 32 - 1, 2 ** (words - 32) - 1] : [2 ** words - 1, 0]) as [number, number]
  const candidates: { d: number; all: boolean; ranked: number; boost: number }[] = []
  for (const d of touched) {
    if (filter.onlyDocument !== undefined ? index.ids[d] !== filter.onlyDocument : !index.active[d]) continue
    if (filter.excludeDocument !== undefined && index.ids[d] === filter.excludeDocument) continue
    if (filter.workspaceId !== undefined && index.workspace[d] !== filter.workspaceId) continue
    if (filter.kind !== undefined && index.kind[d] !== filter.kind) continue
    if (filter.source !== undefined && index.source[d] !== filter.source) continue
    if (filter.tag !== undefined && !index.tags[d]!.includes(filter.tag)) continue
    const boost = (index.pinned[d] ? 1.1 : 1) * (1 + 0.05 * index.rating[d]!)
    candidates.push({ d, all: maskLo[d] === full[0] && maskHi[d] === full[1], ranked: score[d]! * boost, boost })
  }
  candidates.sort((x, y) => (x.all !== y.all ? (x.all ? -1 : 1) : y.ranked - x.ranked || (index.ids[x.d]! < index.ids[y.d]! ? -1 : 1)))
  return candidates.slice(0, limit).map(({ d, boost }) => ({
    document_id: index.ids[d]!,
    score: score[d]!,
    boost,
    matched_terms: popcount(maskLo[d]!) + popcount(maskHi[d]!),
  }))
}

function popcount(v: number): number {
  let n = 0
  for (let x = v; x; x &= x - 1) n++
  return n
}
