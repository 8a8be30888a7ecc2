// A vector copy brought up to date by deltas (a base, documents marked dead, delta segments joined as they pile up)
// ranks exactly as a copy built afresh from the same documents — same documents, chunks and similarities to the
// bit — over seeded random rounds of new, re-embedded, re-filed and deleted documents, for search (boosted, every
// filter) and for link suggestions (raw similarity above a threshold, several query vectors).
import { describe, expect, test } from 'bun:test'
import { RANDOM_WORKSPACES, randomFields, randomTimeRange } from '../../test/search/cache-corpus'
import { type SeededRandom, seededRandom } from '../../test/seeded-random'
import { idOf } from './document-columns'
import type { DocumentFields, DocumentFilter } from './document-fields'
import { segmentOf } from './segment-set'
import { indexOf, rankVectorIndex, searchVectorIndex, withChanges, type VectorChanges, type VectorIndex } from './vector-cache'
import { SegmentBuilder } from './vector-cache-segment'

const DIM = 24

interface Doc {
  fields: DocumentFields
  chunks: { id: string; vector: number[] }[]
}

/** 0–3 chunks; a few near-duplicates of shared centres, so ties and close scores happen. */
function chunksOf(r: SeededRandom, centres: number[][]): Doc['chunks'] {
  return Array.from({ length: r.int(4) }, () => {
    const near = r.next() < 0.3 ? r.pick(centres) : null
    return { id: r.uuid(), vector: Array.from({ length: DIM }, (_, i) => (near ? near[i]! + 1e-4 * (r.next() - 0.5) : r.next() - 0.5)) }
  })
}

/** Chunks as pgvector sends them (int16 dim, int16 unused, big-endian float4s), in chunk id order. */
function sent(docs: Doc[]): { chunkIds: string[]; chunkDocuments: string[]; vectors: Uint8Array } {
  const chunks = docs.flatMap((d) => d.chunks.map((c) => ({ ...c, document: d.fields.id }))).sort((a, b) => (a.id < b.id ? -1 : 1))
  const bytes = new Uint8Array(chunks.length * (4 + 4 * DIM))
  const view = new DataView(bytes.buffer)
  chunks.forEach((c, k) => {
    const at = k * (4 + 4 * DIM)
    view.setInt16(at, DIM)
    c.vector.forEach((v, i) => view.setFloat32(at + 4 + 4 * i, v))
  })
  return { chunkIds: chunks.map((c) => c.id), chunkDocuments: chunks.map((c) => c.document), vectors: bytes }
}

function built(docs: Map<string, Doc>, version: number): VectorIndex {
  const builder = new SegmentBuilder([...docs.values()].map((d) => d.fields))
  const { chunkIds, chunkDocuments, vectors } = sent([...docs.values()])
  expect(builder.addChunks(chunkIds, chunkDocuments, vectors)).toBe(true)
  return indexOf(version, 'test', [segmentOf(builder.build('test'))])
}

function filterOf(r: SeededRandom, ids: string[]): DocumentFilter {
  return r.pick<DocumentFilter>([
    {},
    { workspaceId: r.pick(RANDOM_WORKSPACES) },
    { kind: 'note' },
    { tag: 'lab' },
    { source: 'extension' },
    { excludeDocument: r.pick(ids) },
    { onlyDocument: r.pick(ids) },
    { workspaceId: RANDOM_WORKSPACES[0], kind: 'document' },
    randomTimeRange(r),
    { ...randomTimeRange(r), source: 'api' },
  ])
}

describe('a cached vector index caught up by deltas', () => {
  for (const seed of [1, 2, 3, 4]) {
    test(`ranks as an index built afresh, after every round of changes (seed ${seed})`, () => {
      const r = seededRandom(seed)
      const centres = Array.from({ length: 3 }, () => Array.from({ length: DIM }, () => r.next() - 0.5))
      const docs = new Map<string, Doc>()
      for (let i = 0; i < 120; i++) {
        const id = r.uuid()
        docs.set(id, { fields: randomFields(r, id), chunks: chunksOf(r, centres) })
      }
      let version = 1
      let copy = built(docs, version)
      const maxParts = { seen: 0 }
      for (let round = 0; round < 14; round++) {
        // A round: documents added, re-embedded (vectors changed or gone), re-filed (fields only) and deleted.
        const changed = new Set<string>()
        for (let k = 0, n = 1 + r.int(8); k < n; k++) {
          const ids = [...docs.keys()]
          const what = r.int(4)
          const id = what === 0 || ids.length === 0 ? r.uuid() : r.pick(ids)
          if (what === 0) docs.set(id, { fields: randomFields(r, id), chunks: chunksOf(r, centres) })
          else if (what === 1) docs.get(id)!.chunks = chunksOf(r, centres)
          else if (what === 2) docs.get(id)!.fields = randomFields(r, id)
          else docs.delete(id)
          changed.add(id)
        }
        version++
        const existing = [...changed].flatMap((id) => (docs.has(id) ? [docs.get(id)!] : []))
        const changes: VectorChanges = {
          version,
          changed: [...changed],
          documents: existing.map((d) => d.fields),
          ...sent(existing),
        }
        copy = withChanges(copy, changes)!
        maxParts.seen = Math.max(maxParts.seen, copy.segments.length)
        const fresh = built(docs, version)
        expect(copy.version).toBe(version)

        const ids = [...docs.keys()]
        for (let q = 0; q < 12; q++) {
          const query = Array.from({ length: DIM }, (_, i) => (r.next() < 0.5 ? r.pick(centres)[i]! : r.next() - 0.5))
          const filter = filterOf(r, ids)
          const limit = r.pick([1, 3, 10, 200])
          const where = `seed ${seed}, round ${round}: ${JSON.stringify({ filter, limit })}`
          expect({ where, hits: searchVectorIndex(copy, query, filter, limit) }).toEqual({
            where,
            hits: searchVectorIndex(fresh, query, filter, limit),
          })
          const queries = [Float32Array.from(query), Float32Array.from({ length: DIM }, () => r.next() - 0.5)]
          const linkFilter = { workspaceId: RANDOM_WORKSPACES[0], excludeDocument: r.pick(ids) }
          const links = (c: VectorIndex) =>
            rankVectorIndex(c, queries, linkFilter, limit, { boost: false, atLeast: 0.2 }).map((h) => [
              idOf(h.segment.columns, h.d),
              h.segment.chunkIds[h.chunk],
              h.similarity,
            ])
          expect({ where, links: links(copy) }).toEqual({ where, links: links(fresh) })
        }
      }
      // Deltas were joined as they piled up: never more than the base and eight.
      expect(maxParts.seen).toBeLessThanOrEqual(9)
      expect(copy.segments.length).toBeGreaterThan(1)
    })
  }
})
