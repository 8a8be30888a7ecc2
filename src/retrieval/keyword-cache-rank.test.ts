// The pruned ranking (MaxScore) equals the exhaustive one exactly — same documents, order, scores, boosts and
// matched words — on random corpora and queries from a seeded generator: Zipf-distributed words, shared
// prefixes, every status, filters (time ranges among them), pins and ratings (boosts), oversized tf, words no
// document has, limits 1–100.
import { describe, expect, test } from 'bun:test'
import type { QueryTerm } from './keyword'
import { indexOfSegment as copyOfIndex } from './keyword-cache'
import { rankExhaustively } from './keyword-cache-exhaustive'
import type { DocumentFields, DocumentFilter } from './document-fields'
import { IndexBuilder } from './keyword-cache-build'
import { bytesOf, type KeywordSegment } from './keyword-cache-segment'
import { searchKeywordIndex } from './keyword-cache-rank'
import { RANDOM_DAYS, RANDOM_EPOCH, randomTimeRange } from '../../test/search/cache-corpus'
import { type SeededRandom, seededRandom } from '../../test/seeded-random'

const WORKSPACES = ['11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222', '33333333-3333-4333-8333-333333333333']

/** A corpus: `vocabulary` words (some sharing prefixes), drawn Zipf-like so a few are in most documents. */
function corpus(seed: number) {
  const r = seededRandom(seed)
  const count = 50 + r.int(1500)
  const stems = ['cell', 'gene', 'prot', 'vacc', 'immun', 'tum', 'path', 'rec', 'ops', 'sig']
  const vocabulary = Array.from(
    { length: 40 + r.int(400) },
    (_, i) => `${stems[i % stems.length]}${i < stems.length ? '' : i.toString(36)}`,
  )
  const zipf = () => vocabulary[Math.min(vocabulary.length - 1, Math.floor(vocabulary.length ** r.next()) - 1)]!
  const docs: DocumentFields[] = Array.from({ length: count }, () => ({
    id: r.uuid(),
    status: r.next() < 0.85 ? 'active' : r.pick(['archived', 'pending_approval']),
    workspace_id: r.pick(WORKSPACES),
    kind: r.pick(['document', 'note', 'fact']),
    source: r.pick(['api', 'extension']),
    tags: r.next() < 0.3 ? [r.pick(['lab', 'clinic', 'x'])] : [],
    pinned: r.next() < 0.1,
    rating: r.pick([-1, 0, 0, 0, 1]),
    occurred_at: RANDOM_EPOCH + r.int(RANDOM_DAYS) * 86_400_000,
  }))
  const byTerm = new Map<string, Map<number, number>>()
  const dl = new Float64Array(count)
  docs.forEach((_, d) => {
    for (let w = 0, n = 1 + r.int(60); w < n; w++) {
      const term = zipf()
      const tf = r.next() < 0.002 ? 70_000 + r.int(1000) : 1 + r.int(r.next() < 0.2 ? 12 : 3)
      const postings = byTerm.get(term) ?? byTerm.set(term, new Map()).get(term)!
      postings.set(d, (postings.get(d) ?? 0) + tf)
      dl[d]! += tf
    }
  })
  const builder = new IndexBuilder(docs)
  // Terms in no particular order (the builder sorts them); postings in document order as the loader reads them.
  for (const [term, postings] of [...byTerm].sort(() => r.next() - 0.5)) {
    const sorted = [...postings].sort((x, y) => (docs[x[0]]!.id < docs[y[0]]!.id ? -1 : 1))
    builder.addTerm(
      term,
      sorted.flatMap(([d, tf]) => [docs[d]!.id, tf, dl[d]!]),
    )
  }
  const totalLen = dl.reduce((a, b) => a + b, 0)
  const estimate = builder.bytes
  return { index: builder.build(1, { documents: count, totalLen }), estimate, docs, vocabulary, r }
}

function query(r: SeededRandom, vocabulary: string[]): QueryTerm[] {
  const words = [
    ...new Set(Array.from({ length: 1 + r.int(r.next() < 0.5 ? 4 : 20) }, () => (r.next() < 0.05 ? 'absentword' : r.pick(vocabulary)))),
  ]
  const terms: QueryTerm[] = words.map((term, idx) => ({ idx, term, prefix: false }))
  if (r.next() < 0.3) {
    // The last word being typed: its stem and a shorter prefix, as analyzeSearchQuery adds them.
    const last = r.pick(vocabulary)
    const idx = terms.find((t) => t.term === last)?.idx ?? terms.length
    for (const prefix of new Set([last, last.slice(0, 3)])) terms.push({ idx, term: prefix, prefix: true })
  }
  return terms
}

function filter(r: SeededRandom, docs: DocumentFields[]): DocumentFilter {
  const f: DocumentFilter = {}
  if (r.next() < 0.2) f.workspaceId = r.pick(WORKSPACES)
  if (r.next() < 0.1) f.kind = r.pick(['document', 'note', 'nothing'])
  if (r.next() < 0.1) f.source = 'api'
  if (r.next() < 0.1) f.tag = r.pick(['lab', 'clinic'])
  if (r.next() < 0.1) f.excludeDocument = r.pick(docs).id
  if (r.next() < 0.15) Object.assign(f, randomTimeRange(r))
  if (r.next() < 0.05) return { onlyDocument: r.pick(docs).id }
  return f
}

describe('MaxScore pruning over the cached index', () => {
  test('equals the exhaustive ranking on random corpora, queries, filters and limits', () => {
    let compared = 0
    let full = 0
    for (let seed = 1; seed <= 40; seed++) {
      const { index, docs, vocabulary, r } = corpus(seed)
      for (let q = 0; q < 60; q++) {
        const terms = query(r, vocabulary)
        const f = filter(r, docs)
        const limit = r.pick([1, 3, 10, 10, 50, 100])
        const exhaustive = rankExhaustively(copyOfIndex(index), terms, f, limit)
        const pruned = searchKeywordIndex(copyOfIndex(index), terms, f, limit)
        if (JSON.stringify(pruned) !== JSON.stringify(exhaustive)) {
          throw new Error(
            `seed ${seed}, query ${q}: ${JSON.stringify({ terms, f, limit })}\npruned ${JSON.stringify(pruned)}\nexhaustive ${JSON.stringify(exhaustive)}`,
          )
        }
        compared += exhaustive.length
        if (exhaustive.length === limit) full++
      }
    }
    // Real result lists, most of them cut by the limit (where pruning has something to prune).
    expect(compared).toBeGreaterThan(20_000)
    expect(full).toBeGreaterThan(1_000)
  })

  test('puts documents matching every word first even when partial matches score far higher', () => {
    // Two words; the documents holding both have tf 1 in long documents, the others tf 30 of the rarer word.
    const docs: DocumentFields[] = Array.from({ length: 40 }, (_, i) => ({
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      status: 'active',
      workspace_id: WORKSPACES[0]!,
      kind: 'document',
      source: 'api',
      tags: [],
      occurred_at: 0,
      pinned: i === 3,
      rating: i === 5 ? 1 : 0,
    }))
    const builder = new IndexBuilder(docs)
    const both = [30, 35, 39]
    const rare = docs
      .map((d, i) => [d.id, both.includes(i) ? 1 : 30, both.includes(i) ? 200 : 31])
      .filter((_, i) => i % 2 === 1 || both.includes(i))
    builder.addTerm(
      'alpha',
      both.flatMap((i) => [docs[i]!.id, 1, 200]),
    )
    builder.addTerm('beta', rare.flat())
    const index = builder.build(1, { documents: 40, totalLen: 40 * 31 })
    const terms: QueryTerm[] = [
      { idx: 0, term: 'alpha', prefix: false },
      { idx: 1, term: 'beta', prefix: false },
    ]
    const top = searchKeywordIndex(copyOfIndex(index), terms, {}, 5)
    expect(top.slice(0, 3).map((h) => h.matched_terms)).toEqual([2, 2, 2])
    expect(top).toEqual(rankExhaustively(copyOfIndex(index), terms, {}, 5))
  })
})

describe('a segment’s byte accounting', () => {
  test('counts every typed array the segment holds, and the loader’s running estimate tracks it', () => {
    const { index, estimate } = corpus(7)
    let arrays = 0
    for (const value of [...Object.values(index), ...Object.values(index.columns)])
      if (ArrayBuffer.isView(value)) arrays += value.byteLength
    const names = Object.values(index.columns.names)
      .flat()
      .reduce((sum, n) => sum + 2 * n.length, 0)
    expect(index.bytes).toBe(arrays + names + 16 * index.tfOverflow.size)
    expect(bytesOf(index)).toBe(index.bytes)
    // Postings are 6 bytes each (int32 document, uint16 tf); they are most of a copy.
    expect(index.docs.byteLength + index.tf.byteLength).toBe(6 * index.postings)
    expect(index.postings).toBeGreaterThan(1000)
    // The estimate a load checks the budget against as it goes is within 5 % of what the copy ends up holding.
    expect(Math.abs(estimate - index.bytes) / index.bytes).toBeLessThan(0.05)
  })

  test('tf past uint16 is kept exactly', () => {
    const docs: DocumentFields[] = [0, 1].map((i) => ({
      id: `00000000-0000-4000-8000-00000000000${i}`,
      status: 'active',
      workspace_id: WORKSPACES[0]!,
      kind: 'document',
      source: 'api',
      tags: [],
      occurred_at: 0,
      pinned: false,
      rating: 0,
    }))
    const builder = new IndexBuilder(docs)
    builder.addTerm('huge', [docs[0]!.id, 100_000, 100_000, docs[1]!.id, 65_535, 65_535])
    const index: KeywordSegment = builder.build(1, { documents: 2, totalLen: 165_535 })
    const hits = searchKeywordIndex(copyOfIndex(index), [{ idx: 0, term: 'huge', prefix: false }], {}, 2)
    // Both in the list, the longer tf (so the longer document, here) scored with its own tf, not a clipped one.
    expect(hits.map((h) => h.document_id)).toEqual([docs[0]!.id, docs[1]!.id])
    expect(hits[0]!.score).not.toBe(hits[1]!.score)
  })
})
