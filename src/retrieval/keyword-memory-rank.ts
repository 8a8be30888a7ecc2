// BM25 top-k over an in-memory copy of a user's keyword index (see keyword-memory.ts for how copies are kept
// current) with dynamic pruning as Lucene does it: MaxScore. Words are ordered by their upper bound (idf × the
// largest tf part of their postings, × the largest boost); once k documents are held, the words whose bounds
// together cannot reach the k-th best become non-essential: only documents of the essential words are visited,
// and the others are looked up in them (a galloping search), stopping as soon as the document cannot enter.
// The order is the SQL ranking's — documents matching every word first, then score × boost, then id — so a
// document matching every word is always visited (one essential word is kept), and once the k held all match
// every word, only documents of the shortest list are visited (a conjunction). Exact: it equals the exhaustive
// ranking (keyword-memory-exhaustive.ts), document for document and score for score.
import type { KeywordHit, QueryTerm } from './keyword'
import { boostOf, documentOf, idOf, type UserIndex } from './keyword-memory-index'
import { documentTest, wordLists, type MemoryFilter, type WordList } from './keyword-memory-words'

export type { MemoryFilter } from './keyword-memory-words'
export type { UserIndex } from './keyword-memory-index'

/** Bounds are sums in another order than the score's: a margin far above rounding keeps pruning exact. */
const MARGIN = 1 + 1e-9

export function searchUserIndex(index: UserIndex, terms: QueryTerm[], filter: MemoryFilter, limit: number): KeywordHit[] {
  const words = new Set(terms.map((t) => t.idx)).size
  const passes = documentTest(index, filter)
  if (words === 0 || limit <= 0 || !passes) return []
  const lists = wordLists(index, terms)
  if (lists.length === 0) return []
  if (filter.onlyDocument !== undefined) return scoreOne(index, lists, words, documentOf(index, filter.onlyDocument))
  return topK(index, lists, words, passes, limit)
}

/** First position from `from` in `docs` whose document is at least `target` (galloping, then binary search). */
function seek(docs: Int32Array, from: number, target: number): number {
  if (from >= docs.length || docs[from]! >= target) return from
  let step = 1
  let lo = from
  let hi = from + 1
  while (hi < docs.length && docs[hi]! < target) [lo, hi, step] = [hi, hi + step * 2, step * 2]
  hi = Math.min(hi, docs.length)
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (docs[mid]! < target) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** The score of one document (a more-like-this query scoring its own document): a search of each list. */
function scoreOne(index: UserIndex, lists: WordList[], words: number, d: number): KeywordHit[] {
  let [score, matched] = [0, 0]
  for (const list of lists) {
    const i = seek(list.docs, 0, d)
    if (list.docs[i] === d) (score += list.score(i)), matched++
  }
  return matched ? [{ document_id: idOf(index, d), score, boost: boostOf(index, d), matched_terms: matched }] : []
}

/** The k best held so far, worst first (a binary heap on the ranking's order). */
class Held {
  readonly d: Int32Array
  readonly ranked: Float64Array
  readonly score: Float64Array
  readonly all: Uint8Array
  readonly matched: Uint8Array
  size = 0
  constructor(readonly k: number) {
    ;[this.d, this.ranked, this.score, this.all, this.matched] = [new Int32Array(k), new Float64Array(k), new Float64Array(k), new Uint8Array(k), new Uint8Array(k)]
  }
  get full() {
    return this.size === this.k
  }
  /** Whether entry a ranks below (all, ranked, d). */
  private below(a: number, all: number, ranked: number, d: number): boolean {
    return this.all[a] !== all ? this.all[a]! < all : this.ranked[a] !== ranked ? this.ranked[a]! < ranked : this.d[a]! > d
  }
  offer(d: number, score: number, ranked: number, all: number, matched: number): void {
    if (!this.full) {
      this.put(this.size, d, score, ranked, all, matched)
      this.up(this.size++)
    } else if (this.below(0, all, ranked, d)) {
      this.put(0, d, score, ranked, all, matched)
      this.down(0)
    }
  }
  private put(at: number, d: number, score: number, ranked: number, all: number, matched: number) {
    ;[this.d[at], this.score[at], this.ranked[at], this.all[at], this.matched[at]] = [d, score, ranked, all, matched]
  }
  private swap(a: number, b: number) {
    const [d, score, ranked, all, matched] = [this.d[a]!, this.score[a]!, this.ranked[a]!, this.all[a]!, this.matched[a]!]
    this.put(a, this.d[b]!, this.score[b]!, this.ranked[b]!, this.all[b]!, this.matched[b]!)
    this.put(b, d, score, ranked, all, matched)
  }
  private up(at: number) {
    while (at > 0) {
      const parent = (at - 1) >> 1
      if (!this.below(at, this.all[parent]!, this.ranked[parent]!, this.d[parent]!)) break
      this.swap(at, parent)
      at = parent
    }
  }
  private down(at: number) {
    for (;;) {
      const [l, r] = [2 * at + 1, 2 * at + 2]
      let worst = at
      if (l < this.size && this.below(l, this.all[worst]!, this.ranked[worst]!, this.d[worst]!)) worst = l
      if (r < this.size && this.below(r, this.all[worst]!, this.ranked[worst]!, this.d[worst]!)) worst = r
      if (worst === at) return
      this.swap(at, worst)
      at = worst
    }
  }
}

function topK(index: UserIndex, unordered: WordList[], words: number, passes: (d: number) => boolean, k: number): KeywordHit[] {
  const lists = [...unordered].sort((a, b) => a.upper - b.upper)
  const m = lists.length
  const canAll = m === words // with a word no document holds, nobody matches every word
  const byIdx = Array.from({ length: m }, (_, i) => i).sort((a, b) => lists[a]!.idx - lists[b]!.idx)
  // below[j]: the most lists 0..j-1 can add to a score (× the largest boost: what they can add to score × boost).
  const below = new Float64Array(m + 1)
  for (let j = 0; j < m; j++) below[j + 1] = below[j]! + lists[j]!.upper
  const boostBound = index.maxBoost * MARGIN
  const pos = new Int32Array(m)
  const has = new Uint8Array(m)
  const part = new Float64Array(m)
  const held = new Held(k)
  let essential = 0 // lists essential..m-1 are visited; the rest only looked up
  let driver = -1 // ≥ 0 once the k held all match every word: only this list is visited
  const visitedBy = (i: number) => (driver >= 0 ? i === driver : i >= essential)

  for (;;) {
    let d = 0x7fffffff
    for (let i = driver >= 0 ? driver : essential; i < (driver >= 0 ? driver + 1 : m); i++) {
      if (pos[i]! < lists[i]!.docs.length && lists[i]!.docs[pos[i]!]! < d) d = lists[i]!.docs[pos[i]!]!
    }
    if (d === 0x7fffffff) break
    if (passes(d)) evaluate(d)
    for (let i = 0; i < m; i++) if (visitedBy(i) && lists[i]!.docs[pos[i]!] === d) pos[i]!++
  }
  return Array.from({ length: held.size }, (_, i) => i)
    .sort((a, b) => (held.all[a] !== held.all[b] ? held.all[b]! - held.all[a]! : held.ranked[b]! - held.ranked[a]! || held.d[a]! - held.d[b]!))
    .map((i) => ({ document_id: idOf(index, held.d[i]!), score: held.score[i]!, boost: boostOf(index, held.d[i]!), matched_terms: held.matched[i]! }))

  /** Whether a document whose score is at most `bound` (and that may still match every word) can enter. */
  function canEnter(bound: number, mayMatchAll: boolean): boolean {
    if (!held.full) return true
    const enough = bound * boostBound >= held.ranked[0]!
    return held.all[0] ? mayMatchAll && enough : mayMatchAll || enough
  }

  function evaluate(d: number): void {
    let [partial, rest, missed] = [0, 0, false]
    for (let i = 0; i < m; i++) {
      if (visitedBy(i)) {
        has[i] = lists[i]!.docs[pos[i]!] === d ? 1 : 0
        if (has[i]) partial += part[i] = lists[i]!.score(pos[i]!)
        else missed = true
      } else rest += lists[i]!.upper
    }
    // The others, the largest bound first: each either adds its score or takes its bound off.
    for (let i = m - 1; i >= 0; i--) {
      if (visitedBy(i)) continue
      if (!canEnter(partial + rest, canAll && !missed)) return
      pos[i] = seek(lists[i]!.docs, pos[i]!, d)
      has[i] = lists[i]!.docs[pos[i]!] === d ? 1 : 0
      if (has[i]) partial += part[i] = lists[i]!.score(pos[i]!)
      else missed = true
      rest -= lists[i]!.upper
    }
    if (!canEnter(partial, canAll && !missed)) return
    // The score summed in word order, as the exhaustive ranking sums it (the same bits).
    let [score, matched] = [0, 0]
    for (const i of byIdx) if (has[i]) (score += part[i]!), matched++
    const all = matched === words ? 1 : 0
    held.offer(d, score, score * boostOf(index, d), all, matched)
    if (held.full) narrow(d)
  }

  /** After the k-th best rose: fewer lists need visiting. */
  function narrow(d: number): void {
    if (held.all[0] && driver < 0) {
      // Every document that can still enter holds every word: visit the shortest list only.
      let shortest = 0
      for (let i = 1; i < m; i++) if (lists[i]!.docs.length - pos[i]! < lists[shortest]!.docs.length - pos[shortest]!) shortest = i
      // Lists that were visited stand at d; the new one may lag behind it.
      if (shortest < essential) pos[shortest] = seek(lists[shortest]!.docs, pos[shortest]!, d)
      driver = shortest
      return
    }
    // The k-th best's score is within the bounds of the lists it holds, so one list always stays essential, and a
    // document matching every word, which is in every list, is always visited.
    while (essential < m - 1 && below[essential + 1]! * boostBound < held.ranked[0]!) essential++
  }
}
