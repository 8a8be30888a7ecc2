// BM25 top-k over a user's cached keyword index (index-cache.ts keeps it current) with dynamic pruning as Lucene
// does it: MaxScore. Words are ordered by their upper bound (idf × the largest tf part of their postings, × the
// largest boost); once k documents are held, the words whose bounds together cannot reach the k-th best become
// non-essential: only documents of the essential words are visited, and the others are looked up in them (a
// galloping search) — first bounded by the block of 64 postings that would hold the document (block-max), then
// read, the largest bound first — stopping as soon as the document cannot enter. The order is the SQL ranking's —
// documents matching every word first, then score × boost, then id — so a document matching every word is always
// visited (one essential word is kept), and once the k held all match every word, only documents of the shortest
// list are visited (a conjunction). Exact: it equals the exhaustive ranking (keyword-cache-exhaustive.ts), document
// for document and score for score. An index with delta segments (segment-set.ts) is ranked segment by segment,
// over live documents, and the k best of each merged.
import { boostAt, documentOf, filterTest, idOf } from './document-columns'
import type { DocumentFilter } from './document-fields'
import type { KeywordIndex } from './keyword-cache'
import type { KeywordSegment } from './keyword-cache-segment'
import { wordLists, type WordList } from './keyword-cache-words'
import type { QueryTerm } from './keyword-query'
import type { KeywordHit } from './ranking'

/** Bounds are sums in another order than the score's: a margin far above rounding keeps pruning exact. */
const MARGIN = 1 + 1e-9

export function searchKeywordIndex(cached: KeywordIndex, terms: QueryTerm[], filter: DocumentFilter, limit: number): KeywordHit[] {
  const words = new Set(terms.map((t) => t.idx)).size
  if (words === 0 || limit <= 0) return []
  const lists = wordLists(cached, terms)
  const hits = cached.segments.map((segment, s) => {
    const passes = filterTest(segment.data.columns, filter, segment.dead)
    if (!passes || lists[s]!.length === 0) return []
    if (filter.onlyDocument !== undefined) {
      const d = documentOf(segment.data.columns, filter.onlyDocument)
      return passes(d) ? scoreOne(segment.data, lists[s]!, d) : []
    }
    return topK(segment.data, lists[s]!, words, passes, limit)
  })
  return hits.length === 1 ? hits[0]! : mergeRankings(hits, words, limit)
}

/** The k best of several segments' k best, in the ranking's order (ids compared as the database compares uuids). */
export function mergeRankings(rankings: KeywordHit[][], words: number, limit: number): KeywordHit[] {
  return rankings
    .flat()
    .map((h) => ({ h, all: h.matched_terms === words, ranked: h.score * h.boost }))
    .sort((x, y) =>
      x.all !== y.all
        ? x.all
          ? -1
          : 1
        : y.ranked - x.ranked || (x.h.document_id < y.h.document_id ? -1 : x.h.document_id > y.h.document_id ? 1 : 0),
    )
    .slice(0, limit)
    .map(({ h }) => h)
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
function scoreOne(index: KeywordSegment, lists: WordList[], d: number): KeywordHit[] {
  let [score, matched] = [0, 0]
  for (const list of lists) {
    const i = seek(list.docs, 0, d)
    if (list.docs[i] === d) (score += list.score(i)), matched++
  }
  return matched ? [{ document_id: idOf(index.columns, d), score, boost: boostAt(index.columns, d), matched_terms: matched }] : []
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
    ;[this.d, this.ranked, this.score, this.all, this.matched] = [
      new Int32Array(k),
      new Float64Array(k),
      new Float64Array(k),
      new Uint8Array(k),
      new Uint8Array(k),
    ]
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

function topK(index: KeywordSegment, lists: WordList[], words: number, passes: (d: number) => boolean, k: number): KeywordHit[] {
  const m = lists.length
  const canAll = m === words // with a word no document holds, nobody matches every word
  const boostBound = index.maxBoost * MARGIN
  const upper = Float64Array.from(lists, (list) => {
    let most = 0
    for (let b = 0; b < list.blockLast.length; b++) most = Math.max(most, list.blockUpper(b))
    return most
  })
  const order = Array.from({ length: m }, (_, i) => i).sort((a, b) => upper[a]! - upper[b]!)
  const below = new Float64Array(m + 1) // below[j]: the most lists order[0..j-1] can add to a score
  for (let j = 0; j < m; j++) below[j + 1] = below[j]! + upper[order[j]!]!
  const [pos, block] = [new Int32Array(m), new Int32Array(m)]
  const has = new Uint8Array(m)
  const [part, blockBound] = [new Float64Array(m), new Float64Array(m)]
  // Visited lists (their documents are the candidates) and the others, looked up, the largest bound first.
  const [visit, probe] = [new Int32Array(m), new Int32Array(m)]
  let [visits, probes] = [0, 0]
  let essential = 0 // lists order[essential..] are visited
  let driver = -1 // ≥ 0 once the k held all match every word: only this list is visited
  const held = new Held(k)
  partition()

  for (;;) {
    let d = 0x7fffffff
    for (let v = 0; v < visits; v++) {
      const i = visit[v]!
      const at = lists[i]!.docs[pos[i]!]
      if (at !== undefined && at < d) d = at
    }
    if (d === 0x7fffffff) break
    if (passes(d)) evaluate(d)
    for (let v = 0; v < visits; v++) if (lists[visit[v]!]!.docs[pos[visit[v]!]!] === d) pos[visit[v]!]!++
  }
  return Array.from({ length: held.size }, (_, i) => i)
    .sort((a, b) =>
      held.all[a] !== held.all[b] ? held.all[b]! - held.all[a]! : held.ranked[b]! - held.ranked[a]! || held.d[a]! - held.d[b]!,
    )
    .map((i) => ({
      document_id: idOf(index.columns, held.d[i]!),
      score: held.score[i]!,
      boost: boostAt(index.columns, held.d[i]!),
      matched_terms: held.matched[i]!,
    }))

  /** Whether a document whose score is at most `most` (and that may still match every word) can enter. */
  function canEnter(most: number, mayMatchAll: boolean): boolean {
    if (!held.full) return true
    const enough = most * boostBound >= held.ranked[0]!
    return held.all[0] ? mayMatchAll && enough : mayMatchAll || enough
  }

  /** Which lists are visited, now that the k-th best is what it is. */
  function partition(): void {
    if (driver >= 0) {
      visit[0] = driver
      ;[visits, probes] = [1, 0]
      for (let j = m - 1; j >= 0; j--) if (order[j] !== driver) probe[probes++] = order[j]!
      return
    }
    // While a document matching every word can still enter, one list stays visited: such a document is in all.
    const most = canAll ? m - 1 : m
    if (held.full) while (essential < most && below[essential + 1]! * boostBound < held.ranked[0]!) essential++
    visits = probes = 0
    for (let j = essential; j < m; j++) visit[visits++] = order[j]!
    for (let j = essential - 1; j >= 0; j--) probe[probes++] = order[j]!
  }

  function evaluate(d: number): void {
    let [partial, missed] = [0, false]
    for (let v = 0; v < visits; v++) {
      const i = visit[v]!
      has[i] = lists[i]!.docs[pos[i]!] === d ? 1 : 0
      if (has[i]) partial += part[i] = lists[i]!.score(pos[i]!)
      else missed = true
    }
    if (probes > 0) {
      const mayMatchAll = canAll && !missed
      if (!canEnter(partial + (driver >= 0 ? below[m]! : below[essential]!), mayMatchAll)) return
      // Tighter: each other list's bound in the block that would hold d (a step over block ends, no posting read).
      let rest = 0
      for (let p = 0; p < probes; p++) {
        const i = probe[p]!
        const last = lists[i]!.blockLast
        let b = block[i]!
        while (b < last.length && last[b]! < d) b++
        block[i] = b
        rest += blockBound[i] = b < last.length ? lists[i]!.blockUpper(b) : 0
      }
      // Then each is looked up, the largest bound first: it adds its score or takes its bound off.
      for (let p = 0; p < probes; p++) {
        const i = probe[p]!
        if (!canEnter(partial + rest, canAll && !missed)) return
        pos[i] = seek(lists[i]!.docs, pos[i]!, d)
        has[i] = lists[i]!.docs[pos[i]!] === d ? 1 : 0
        if (has[i]) partial += part[i] = lists[i]!.score(pos[i]!)
        else missed = true
        rest -= blockBound[i]!
      }
    }
    if (!canEnter(partial, canAll && !missed)) return
    // The score summed in word order, as the exhaustive ranking sums it (the same bits).
    let [score, matched] = [0, 0]
    for (let i = 0; i < m; i++) if (has[i]) (score += part[i]!), matched++
    held.offer(d, score, score * boostAt(index.columns, d), matched === words ? 1 : 0, matched)
    if (!held.full) return
    if (held.all[0] && driver < 0) {
      // Every document that can still enter holds every word: visit the shortest list only.
      let shortest = 0
      for (let i = 1; i < m; i++) if (lists[i]!.docs.length - pos[i]! < lists[shortest]!.docs.length - pos[shortest]!) shortest = i
      // Visited lists stand at d; another may lag behind it.
      pos[shortest] = seek(lists[shortest]!.docs, pos[shortest]!, d)
      driver = shortest
    }
    partition()
  }
}
