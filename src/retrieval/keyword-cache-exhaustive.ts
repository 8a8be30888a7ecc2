// The exhaustive BM25 ranking over a cached keyword index: every posting of every query word scored, then sorted.
// It is the reference the pruned ranking (keyword-cache-rank.ts) must equal exactly; tests and bench:search
// compare the two, and the pruned one answers searches.
import { boostAt, filterTest, idOf } from './document-columns'
import type { DocumentFilter } from './document-fields'
import type { KeywordIndex } from './keyword-cache'
import { mergeRankings } from './keyword-cache-rank'
import type { KeywordSegment } from './keyword-cache-segment'
import { wordLists, type WordList } from './keyword-cache-words'
import type { QueryTerm } from './keyword-query'
import type { KeywordHit } from './ranking'
import type { Segment } from './segment-set'

export function rankExhaustively(cached: KeywordIndex, terms: QueryTerm[], filter: DocumentFilter, limit: number): KeywordHit[] {
  const words = new Set(terms.map((t) => t.idx)).size
  if (words === 0) return []
  const lists = wordLists(cached, terms)
  const hits = cached.segments.map((segment, s) => rankSegment(segment, lists[s]!, words, filter, limit))
  return mergeRankings(hits, words, limit)
}

function rankSegment(
  segment: Segment<KeywordSegment>,
  lists: WordList[],
  words: number,
  filter: DocumentFilter,
  limit: number,
): KeywordHit[] {
  const { data: index } = segment
  const passes = filterTest(index.columns, filter, segment.dead)
  if (!passes) return []
  const score = new Float64Array(index.columns.count)
  const matched = new Uint8Array(index.columns.count)
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
    const boost = boostAt(index.columns, d)
    return { d, all: matched[d] === words, ranked: score[d]! * boost, boost }
  })
  // Every word first, then score × boost, then id (document numbers are in id order).
  candidates.sort((x, y) => (x.all !== y.all ? (x.all ? -1 : 1) : y.ranked - x.ranked || x.d - y.d))
  return candidates
    .slice(0, limit)
    .map(({ d, boost }) => ({ document_id: idOf(index.columns, d), score: score[d]!, boost, matched_terms: matched[d]! }))
}
