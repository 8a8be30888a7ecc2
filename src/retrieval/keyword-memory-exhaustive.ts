// The exhaustive BM25 ranking over an in-memory copy: every posting of every query word scored, then sorted.
// It is the reference the pruned ranking (keyword-memory-rank.ts) must equal exactly; tests and bench:search
// compare the two, and the pruned one answers searches.
import type { KeywordHit, QueryTerm } from './keyword'
import type { KeywordCopy, Segment } from './keyword-memory-copy'
import { boostOf, idOf } from './keyword-memory-index'
import { mergeRankings } from './keyword-memory-rank'
import { documentTest, wordLists, type MemoryFilter, type WordList } from './keyword-memory-words'

export function rankExhaustively(copy: KeywordCopy, terms: QueryTerm[], filter: MemoryFilter, limit: number): KeywordHit[] {
  const words = new Set(terms.map((t) => t.idx)).size
  if (words === 0) return []
  const lists = wordLists(copy, terms)
  const hits = copy.segments.map((segment, s) => rankSegment(segment, lists[s]!, words, filter, limit))
  return mergeRankings(hits, words, limit)
}

function rankSegment(segment: Segment, lists: WordList[], words: number, filter: MemoryFilter, limit: number): KeywordHit[] {
  const { index } = segment
  const passes = documentTest(segment, filter)
  if (!passes) return []
  const score = new Float64Array(index.count)
  const matched = new Uint8Array(index.count)
  const touched: number[] = []
  for (const list of lists) {
    for (let i = 0; i < list.docs.length; i++) {
      const d = list.docs[i]!
      if (matched[d] === 0) touched.push(d)
      score[d]! += list.score(i)
      matched[d]!++
    }
  }
  const candidates = touched.filter(passes).map((d) => {
    const boost = boostOf(index, d)
    return { d, all: matched[d] === words, ranked: score[d]! * boost, boost }
  })
  // Every word first, then score × boost, then id (document numbers are in id order).
  candidates.sort((x, y) => (x.all !== y.all ? (x.all ? -1 : 1) : y.ranked - x.ranked || x.d - y.d))
  return candidates
    .slice(0, limit)
    .map(({ d, boost }) => ({ document_id: idOf(index, d), score: score[d]!, boost, matched_terms: matched[d]! }))
}
