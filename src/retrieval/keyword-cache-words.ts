// A query over a user's cached keyword index, prepared for ranking: in each segment, each query word as one list
// of (document, score) with its upper bound. Shared by the pruned ranking and the exhaustive one it must equal
// (keyword-cache-rank.ts, keyword-cache-exhaustive.ts).
import type { KeywordIndex } from './keyword-cache'
import { BLOCK, findTerm, prefixRange, tfOf, tfPart, type KeywordSegment } from './keyword-cache-segment'
import type { QueryTerm } from './keyword-query'
import { PREFIX_WEIGHT } from './ranking'
import type { Segment as AnySegment } from './segment-set'

type Segment = AnySegment<KeywordSegment>

/** One query word: its documents in order and what each scores for it. */
export interface WordList {
  idx: number
  docs: Int32Array
  /** The word's score in docs[i]: computed from the posting (one form), or kept (several forms, best of them). */
  score: (i: number) => number
  /** Blocks of BLOCK postings: block b ends at document blockLast[b], and no document in it scores above blockUpper(b). */
  blockLast: Int32Array
  blockUpper: (b: number) => number
}

/** What one query word has in one segment: its exact terms and its expansions (term numbers there). */
interface Forms {
  exact: number[]
  prefixed: number[]
  /** Live documents holding the word in any form (1), when it has several forms here. */
  held?: Uint8Array
}

/**
 * The query's words that have postings, per segment of the index, each segment's in idx order (the order every
 * score is summed in, so the pruned and exhaustive rankings agree to the bit): exact terms at weight 1; the last
 * word's expansions (longer terms under its prefixes that no query word has exactly) at PREFIX_WEIGHT with the
 * df of every document holding the word in any form; each word counted once per document, its best-scoring form.
 * Document frequencies and the corpus (n, avgdl) are the whole index's — live documents of every segment — so a
 * segment's scores are those of the current corpus.
 */
export function wordLists(cached: KeywordIndex, terms: QueryTerm[]): WordList[][] {
  const idf = (df: number) => Math.log(1 + (cached.n - df + 0.5) / (df + 0.5))
  const sorted = [...terms].sort((a, b) => a.idx - b.idx)
  const forms = cached.segments.map((segment) => formsIn(segment.data, sorted))
  // Document frequencies over the index: each exact term's, and each expanded word's (any of its forms).
  const df = new Map<string, number>()
  const holders = new Map<number, number>()
  const expanded = new Set<number>()
  for (const byWord of forms) for (const [idx, f] of byWord) if (f.prefixed.length > 0) expanded.add(idx)
  cached.segments.forEach((segment, s) => {
    for (const t of sorted) {
      if (t.prefix) continue
      const term = findTerm(segment.data, t.term)
      if (term >= 0) df.set(t.term, (df.get(t.term) ?? 0) + liveCount(segment, term))
    }
    for (const [idx, f] of forms[s]!) {
      if (!expanded.has(idx)) continue
      const count = f.exact.length === 1 && f.prefixed.length === 0 ? liveCount(segment, f.exact[0]!) : holdersIn(segment, f)
      holders.set(idx, (holders.get(idx) ?? 0) + count)
    }
  })
  const dfOf = (index: KeywordSegment, term: number) => df.get(termText(index, term))!
  return cached.segments.map((segment, s) => {
    const { data: index } = segment
    // Block bounds were taken at the segment's avgdl: a larger one now raises a tf part by at most the ratio.
    const grow = Math.max(1, cached.avgdl / index.avgdl)
    const lists: WordList[] = []
    for (const [idx, f] of forms[s]!) {
      if (f.exact.length === 1 && f.prefixed.length === 0)
        lists.push(termList(segment, cached.avgdl, grow, idx, f.exact[0]!, idf(dfOf(index, f.exact[0]!))))
      else if (f.exact.length + f.prefixed.length > 0) {
        const weights = [
          ...f.exact.map((term) => ({ term, weight: idf(dfOf(index, term)) })),
          ...f.prefixed.map((term) => ({ term, weight: PREFIX_WEIGHT * idf(holders.get(idx)!) })),
        ]
        lists.push(bestOfForms(segment, cached.avgdl, idx, f, weights))
      }
    }
    return lists
  })
}

function formsIn(index: KeywordSegment, sorted: QueryTerm[]): Map<number, Forms> {
  const exactTerms = new Set<number>()
  for (const t of sorted) if (!t.prefix) exactTerms.add(findTerm(index, t.term))
  const forms = new Map<number, { exact: number[]; prefixed: Set<number> }>()
  const formsOf = (idx: number) => forms.get(idx) ?? forms.set(idx, { exact: [], prefixed: new Set() }).get(idx)!
  for (const t of sorted) {
    if (!t.prefix) {
      const term = findTerm(index, t.term)
      if (term >= 0) formsOf(t.idx).exact.push(term)
      continue
    }
    const [from, to] = prefixRange(index, t.term)
    for (let term = from; term < to; term++) if (!exactTerms.has(term)) formsOf(t.idx).prefixed.add(term)
  }
  return new Map([...forms].map(([idx, f]) => [idx, { exact: f.exact, prefixed: [...f.prefixed] }]))
}

function termText(index: KeywordSegment, t: number): string {
  return String.fromCharCode(...index.termChars.subarray(index.termAt[t]!, index.termAt[t + 1]!))
}

/** Live documents of the segment holding any of the word's forms (kept for bestOfForms). */
function holdersIn(segment: Segment, f: Forms): number {
  const { data: index, dead } = segment
  const held = new Uint8Array(index.columns.count)
  let count = 0
  for (const term of [...f.exact, ...f.prefixed]) {
    for (let p = index.postingAt[term]!; p < index.postingAt[term + 1]!; p++) {
      const d = index.docs[p]!
      if (!held[d] && !dead?.[d]) (held[d] = 1), count++
    }
  }
  f.held = held
  return count
}

function termList(segment: Segment, avgdl: number, grow: number, idx: number, term: number, weight: number): WordList {
  const { data: index } = segment
  const [from, to] = [index.postingAt[term]!, index.postingAt[term + 1]!]
  const docs = index.docs.subarray(from, to)
  const { dl, blockMaxTf } = index
  const firstBlock = index.blockAt[term]!
  const bound = weight * grow
  return {
    idx,
    docs,
    score: (i) => weight * tfPart(tfOf(index, from + i), dl[docs[i]!]!, avgdl),
    blockLast: index.blockLast.subarray(firstBlock, index.blockAt[term + 1]!),
    blockUpper: (b) => bound * blockMaxTf[firstBlock + b]!,
  }
}

/** A word with several forms: each live document's best form, over the union of their documents (read whole). */
function bestOfForms(segment: Segment, avgdl: number, idx: number, f: Forms, forms: { term: number; weight: number }[]): WordList {
  const { data: index } = segment
  if (!f.held) holdersIn(segment, f)
  const held = f.held!
  const best = new Float64Array(index.columns.count).fill(-Infinity)
  let holders = 0
  for (let d = 0; d < index.columns.count; d++) holders += held[d]!
  for (const { term, weight } of forms) {
    for (let p = index.postingAt[term]!; p < index.postingAt[term + 1]!; p++) {
      const d = index.docs[p]!
      if (!held[d]) continue
      const s = weight * tfPart(tfOf(index, p), index.dl[d]!, avgdl)
      if (best[d]! < s) best[d] = s
    }
  }
  const docs = new Int32Array(holders)
  const scores = new Float64Array(holders)
  const blockLast = new Int32Array(Math.ceil(holders / BLOCK))
  const blockMax = new Float64Array(blockLast.length)
  for (let d = 0, i = 0; d < index.columns.count; d++) {
    if (!held[d]) continue
    const b = Math.floor(i / BLOCK)
    docs[i] = blockLast[b] = d
    scores[i++] = best[d]!
    if (best[d]! > blockMax[b]!) blockMax[b] = best[d]!
  }
  return { idx, docs, score: (j) => scores[j]!, blockLast, blockUpper: (b) => blockMax[b]! }
}

/** How many live documents of the index hold `term`. */
export function documentFrequency(index: KeywordIndex, term: string): number {
  let df = 0
  for (const segment of index.segments) {
    const t = findTerm(segment.data, term)
    if (t >= 0) df += liveCount(segment, t)
  }
  return df
}

/** How many live documents of this segment hold term t. */
export function liveCount(segment: Segment, t: number): number {
  const { data: index, dead, deadList } = segment
  const [from, to] = [index.postingAt[t]!, index.postingAt[t + 1]!]
  if (!dead) return to - from
  const cached = segment.live.get(t)
  if (cached !== undefined) return cached
  let gone = 0
  if (deadList.length * Math.log2(to - from + 2) < to - from) {
    // Few tombstones: look each up in the list.
    for (const d of deadList) {
      let [lo, hi] = [from, to]
      while (lo < hi) {
        const mid = (lo + hi) >>> 1
        if (index.docs[mid]! < d) lo = mid + 1
        else hi = mid
      }
      if (lo < to && index.docs[lo] === d) gone++
    }
  } else {
    for (let p = from; p < to; p++) gone += dead[index.docs[p]!]!
  }
  if (segment.live.size > 10_000) segment.live.clear()
  segment.live.set(t, to - from - gone)
  return to - from - gone
}
