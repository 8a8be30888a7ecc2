// A copy brought up to date by deltas (a base, tombstones, delta segments merged as they pile up) ranks exactly as
// a copy built afresh from the same documents — same documents, order and scores to the bit — and its pruned
// ranking equals its exhaustive one: over seeded random edits, inserts and deletes, for plain and prefix queries,
// filters (time among them) and boosts, also when the average length moves (block bounds taken at the old one stay bounds).
import { describe, expect, test } from 'bun:test'
import type { DocumentFilter } from './document-fields'
import { corpusOf, indexOf as copyOf, withChanges, type ChangedDocument, type KeywordIndex } from './keyword-cache'
import { buildSegment as build } from './keyword-cache-build'
import { mergeSegments } from './keyword-cache-merge'
import { atOnce } from './slices'
import type { KeywordSegment } from './keyword-cache-segment'
import { rankExhaustively } from './keyword-cache-exhaustive'
import { searchKeywordIndex } from './keyword-cache-rank'
import { segmentOf, type Segment } from './segment-set'
import type { QueryTerm } from './keyword-query'
import { RANDOM_WORKSPACES, randomFields, randomTimeRange } from '../../test/search/cache-corpus'
import { type SeededRandom, seededRandom } from '../../test/seeded-random'

const STEMS = ['cell', 'gene', 'prot', 'vacc', 'immun', 'tum', 'rec', 'ops']
const VOCABULARY = Array.from({ length: 120 }, (_, i) => `${STEMS[i % STEMS.length]}${i < STEMS.length ? '' : i.toString(36)}`)

/** A document: fields and postings; `long` documents move the average length when they come and go. */
function documentOf(r: SeededRandom, id: string, long = false): ChangedDocument {
  const tfs = new Map<string, number>()
  const zipf = () => VOCABULARY[Math.min(VOCABULARY.length - 1, Math.floor(VOCABULARY.length ** r.next()) - 1)]!
  for (let w = 0, n = long ? 200 + r.int(400) : 1 + r.int(40); w < n; w++) {
    const term = zipf()
    tfs.set(term, (tfs.get(term) ?? 0) + 1 + r.int(r.next() < 0.2 ? 9 : 2))
  }
  const dl = [...tfs.values()].reduce((a, b) => a + b, 0)
  return {
    ...randomFields(r, id),
    postings: [...tfs].map(([term, tf]) => [term, tf, dl]),
  }
}

const statsOf = (docs: Map<string, ChangedDocument>) => {
  let [documents, totalLen] = [0, 0]
  for (const d of docs.values()) {
    const dl = d.postings?.[0]?.[2] ?? 0
    if (dl > 0) (documents += 1), (totalLen += dl)
  }
  return { documents, totalLen }
}

function query(r: SeededRandom): QueryTerm[] {
  const words = [...new Set(Array.from({ length: 1 + r.int(5) }, () => (r.next() < 0.05 ? 'absentword' : r.pick(VOCABULARY))))]
  const terms: QueryTerm[] = words.map((term, idx) => ({ idx, term, prefix: false }))
  if (r.next() < 0.4) {
    const last = r.pick(VOCABULARY)
    const idx = terms.find((t) => t.term === last)?.idx ?? terms.length
    for (const prefix of new Set([last, last.slice(0, 3)])) terms.push({ idx, term: prefix, prefix: true })
  }
  return terms
}

function filter(r: SeededRandom, ids: string[]): DocumentFilter {
  if (r.next() < 0.05) return { onlyDocument: r.pick(ids) }
  const f: DocumentFilter = {}
  if (r.next() < 0.2) f.workspaceId = r.pick(RANDOM_WORKSPACES)
  if (r.next() < 0.1) f.kind = 'note'
  if (r.next() < 0.1) f.tag = 'lab'
  if (r.next() < 0.1) f.excludeDocument = r.pick(ids)
  if (r.next() < 0.15) Object.assign(f, randomTimeRange(r))
  return f
}

describe('a cached keyword index caught up by deltas', () => {
  test('ranks exactly as an index built afresh from the same documents, pruned equal to exhaustive', () => {
    let [compared, segmented, tombstoned] = [0, 0, 0]
    for (let seed = 1; seed <= 12; seed++) {
      const r = seededRandom(seed)
      const docs = new Map<string, ChangedDocument>()
      for (let i = 0, n = 200 + r.int(400); i < n; i++) {
        const id = r.uuid()
        docs.set(id, documentOf(r, id))
      }
      let version = 1
      let copy: KeywordIndex = copyOf(version, statsOf(docs), [segmentOf(build([...docs.values()], version, statsOf(docs)))])
      for (let step = 0; step < 30; step++) {
        // A write: a few documents edited, added (some long, moving avgdl) or deleted.
        const changed: string[] = []
        for (let k = 0, n = 1 + r.int(r.next() < 0.1 ? 40 : 4); k < n; k++) {
          const roll = r.next()
          const ids = [...docs.keys()]
          if (roll < 0.5) {
            const id = r.pick(ids)
            docs.set(
              id,
              r.next() < 0.5
                ? documentOf(r, id)
                : {
                    ...docs.get(id)!,
                    status: r.pick(['active', 'archived']),
                    rating: r.pick([-1, 1]),
                    occurred_at: randomFields(r, id).occurred_at,
                  },
            )
            changed.push(id)
          } else if (roll < 0.8) {
            const id = r.uuid()
            docs.set(id, documentOf(r, id, r.next() < 0.3))
            changed.push(id)
          } else {
            const id = r.pick(ids)
            docs.delete(id)
            changed.push(id)
          }
        }
        version++
        const stats = statsOf(docs)
        copy = withChanges(
          copy,
          version,
          stats,
          changed,
          changed.flatMap((id) => (docs.has(id) ? [docs.get(id)!] : [])),
        )
        const fresh = copyOf(version, stats, [segmentOf(build([...docs.values()], version, stats))])
        if (copy.segments.length > 1) segmented++
        if (copy.segments[0]!.deadList.length > 0) tombstoned++
        const ids = [...docs.keys()]
        for (let q = 0; q < 12; q++) {
          const terms = query(r)
          const f = filter(r, ids)
          const limit = r.pick([1, 5, 10, 50])
          const expected = searchKeywordIndex(fresh, terms, f, limit)
          const pruned = searchKeywordIndex(copy, terms, f, limit)
          const exhaustive = rankExhaustively(copy, terms, f, limit)
          const context = `seed ${seed} step ${step} ${JSON.stringify({ terms, f, limit })}`
          expect(`${context} ${JSON.stringify(pruned)}`).toBe(`${context} ${JSON.stringify(expected)}`)
          expect(`${context} ${JSON.stringify(exhaustive)}`).toBe(`${context} ${JSON.stringify(expected)}`)
          compared += expected.length
        }
      }
    }
    // Real result lists, over copies that had deltas and tombstones in their base.
    expect(compared).toBeGreaterThan(20_000)
    expect(segmented).toBeGreaterThan(300)
    expect(tombstoned).toBeGreaterThan(300)
  }, 60_000)

  test('merges delta segments as they pile up, so a search visits a few', () => {
    const r = seededRandom(99)
    const docs = new Map<string, ChangedDocument>()
    for (let i = 0; i < 500; i++) {
      const id = r.uuid()
      docs.set(id, documentOf(r, id))
    }
    let copy = copyOf(1, statsOf(docs), [segmentOf(build([...docs.values()], 1, statsOf(docs)))])
    let most = 0
    for (let v = 2; v < 300; v++) {
      const id = r.uuid()
      docs.set(id, documentOf(r, id))
      copy = withChanges(copy, v, statsOf(docs), [id], [docs.get(id)!])
      most = Math.max(most, copy.segments.length)
    }
    expect(copy.deltaDocuments).toBe(298)
    expect(most).toBeLessThanOrEqual(10)
  }, 60_000)
})

describe('block bounds when the average length grows', () => {
  test('bounds taken at the base’s average length stay bounds: pruned equals exhaustive after long documents arrive', () => {
    let compared = 0
    for (let seed = 200; seed < 230; seed++) {
      const r = seededRandom(seed)
      const docs = new Map<string, ChangedDocument>()
      for (let i = 0; i < 400; i++) {
        const id = r.uuid()
        docs.set(id, documentOf(r, id))
      }
      const base = copyOf(1, statsOf(docs), [segmentOf(build([...docs.values()], 1, statsOf(docs)))])
      // Long documents, holding none of the query's words: the average length grows many times over.
      const added: ChangedDocument[] = []
      for (let i = 0; i < 300; i++) {
        const id = r.uuid()
        const long = documentOf(r, id, true)
        long.postings = [['filler', 5_000, 5_000]]
        docs.set(id, long)
        added.push(long)
      }
      const copy = withChanges(
        base,
        2,
        statsOf(docs),
        added.map((d) => d.id),
        added,
      )
      expect(copy.avgdl).toBeGreaterThan(10 * base.avgdl)
      for (let q = 0; q < 200; q++) {
        const terms = query(r).filter((t) => !t.prefix)
        const limit = r.pick([1, 2, 3, 5])
        const pruned = searchKeywordIndex(copy, terms, {}, limit)
        expect(JSON.stringify(pruned)).toBe(JSON.stringify(rankExhaustively(copy, terms, {}, limit)))
        compared += pruned.length
      }
    }
    expect(compared).toBeGreaterThan(10_000)
  }, 60_000)
})

describe('merging segments', () => {
  test('gives, array for array, the segment a build of their live documents gives', () => {
    for (let seed = 300; seed < 320; seed++) {
      const r = seededRandom(seed)
      const parts: Segment<KeywordSegment>[] = []
      const live: ChangedDocument[] = []
      for (let k = 0, n = 1 + r.int(5); k < n; k++) {
        const docs = Array.from({ length: r.int(k === 0 ? 300 : 40) }, () => documentOf(r, r.uuid(), r.next() < 0.1))
        // Now and then a tf past uint16 (the side table) and a document without postings.
        if (docs.length > 0 && r.next() < 0.3) docs[0]!.postings = [['huge', 70_000, 70_000]]
        if (docs.length > 1 && r.next() < 0.3) docs[1]!.postings = []
        const segment = build(docs, 1, statsOf(new Map(docs.map((d) => [d.id, d]))))
        const dead = new Uint8Array(segment.columns.count)
        const byId = [...docs].sort((a, b) => (a.id < b.id ? -1 : 1))
        byId.forEach((d, i) => (r.next() < 0.2 ? (dead[i] = 1) : live.push(d)))
        const deadList = Int32Array.from([...dead.keys()].filter((i) => dead[i]))
        parts.push({ data: segment, dead: deadList.length ? dead : null, deadList, live: new Map() })
      }
      const stats = statsOf(new Map(live.map((d) => [d.id, d])))
      const merged = atOnce(mergeSegments(parts, 7, corpusOf(stats)))
      const built = build(live, 7, stats)
      const plain = (s: KeywordSegment) =>
        JSON.stringify({ ...s, tfOverflow: [...s.tfOverflow] }, (_, v) => (ArrayBuffer.isView(v) ? Array.from(v as Uint8Array) : v))
      expect(plain(merged)).toBe(plain(built))
    }
  })
})
