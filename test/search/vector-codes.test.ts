// The int8 scan of the cached vector index: the SIMD kernel computes the same integer dot products as the plain
// loop, and the two-pass ranking (codes scanned, candidates rescored in float) returns exactly what a float scan of
// every chunk returns — including among near-duplicates whose differences are far below an int8 step, where only a
// correct error bound keeps the true best document from being cut.
import { describe, expect, test } from 'bun:test'
import { createInt8Dots } from '../../src/retrieval/int8-dots'
import { boostAt, columnsOf, idOf } from '../../src/retrieval/document-columns'
import type { DocumentFilter } from '../../src/retrieval/document-fields'
import { encodeRows } from '../../src/retrieval/vector-codes'
import { bytesOf, rankDocuments, type VectorSegment } from '../../src/retrieval/vector-cache-rank'

/** Document d's id: uuids in the order of d. */
const docId = (d: number) => `00000000-0000-4000-8000-${String(d).padStart(12, '0')}`

let seed = 7
const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed / 2147483648)
const gaussian = () => Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random())

/** A copy of `docs` documents with 1–3 chunks each; every fifth document a near-duplicate of a few shared centres. */
function syntheticCopy(docs: number, dim: number, simd: boolean): VectorSegment {
  const centres = Array.from({ length: 4 }, () => Array.from({ length: dim }, gaussian))
  const rows: number[][] = []
  const chunkDoc: number[] = []
  for (let d = 0; d < docs; d++) {
    const n = 1 + (d % 3)
    for (let k = 0; k < n; k++) {
      const centre = centres[d % 4]!
      rows.push(d % 5 === 0 ? centre.map((v) => v + 1e-4 * gaussian()) : Array.from({ length: dim }, gaussian))
      chunkDoc.push(d)
    }
  }
  return copyOf(rows, chunkDoc, simd)
}

function copyOf(rows: number[][], chunkDoc: number[], simd: boolean): VectorSegment {
  const docs = chunkDoc[chunkDoc.length - 1]! + 1
  const dim = rows[0]!.length
  const vectors = Float32Array.from(rows.flat())
  const docStart = new Int32Array(docs + 1)
  for (const d of chunkDoc) docStart[d + 1]!++
  for (let d = 0; d < docs; d++) docStart[d + 1]! += docStart[d]!
  const columns = columnsOf(
    Array.from({ length: docs }, (_, d) => ({
      id: docId(d),
      status: 'active',
      pinned: d % 7 === 0,
      rating: (d % 3) - 1,
      workspace_id: d % 2 ? 'w1' : 'w2',
      kind: 'document',
      source: 'api',
      tags: [],
      occurred_at: 0,
    })),
  )
  const segment = {
    model: 'test',
    dim,
    columns,
    chunkIds: chunkDoc.map((_, c) => `chunk-${String(c).padStart(6, '0')}`),
    chunkDoc: Int32Array.from(chunkDoc),
    docStart,
    vectors,
    norms: Float64Array.from(rows, (r) => Float32Array.from(r).reduce((s, v) => s + v * v, 0)),
    codes: encodeRows(vectors, rows.length, dim, { simd }),
  }
  return { ...segment, bytes: bytesOf(segment), weight: rows.length }
}

/** Every chunk compared in float: the ranking the SQL makes, and the copy made before it had codes. */
function bruteForce(
  copy: VectorSegment,
  queries: Float32Array[],
  filter: DocumentFilter,
  limit: number,
  boost: boolean,
  atLeast = -Infinity,
) {
  const scored: { id: string; chunk: string; similarity: number; ranked: number }[] = []
  const { columns } = copy
  for (let d = 0; d < columns.count; d++) {
    if (filter.workspaceId !== undefined && columns.names.workspace[columns.workspace[d]!] !== filter.workspaceId) continue
    if (filter.excludeDocument !== undefined && idOf(columns, d) === filter.excludeDocument) continue
    let best = -Infinity
    let chunk = ''
    for (const q of queries) {
      const qq = q.reduce((s, v) => s + v * v, 0)
      for (let c = copy.docStart[d]!; c < copy.docStart[d + 1]!; c++) {
        const sums = [0, 0, 0, 0] // four running sums, as the copy's float scan adds (so near-ties compare alike)
        for (let i = 0; i < copy.dim; i++) sums[i % 4]! += q[i]! * copy.vectors[c * copy.dim + i]!
        const similarity = Math.max(-1, Math.min(1, (sums[0]! + sums[1]! + sums[2]! + sums[3]!) / Math.sqrt(qq * copy.norms[c]!)))
        if (similarity > best) (best = similarity), (chunk = copy.chunkIds[c]!)
      }
    }
    if (best >= atLeast) scored.push({ id: idOf(columns, d), chunk, similarity: best, ranked: best * (boost ? boostAt(columns, d) : 1) })
  }
  scored.sort((a, b) => b.ranked - a.ranked || (a.id < b.id ? -1 : 1))
  return scored.slice(0, limit)
}

describe('int8 codes of the cached vector index', () => {
  test("an error bound that holds when a chunk's rounding lines up with the query", () => {
    // A's every code is off by 0.49 of a step towards the query, so its codes misjudge its score by ~97 % of the
    // bound and put it below B, though A is the nearer. A bound any tighter (its chunk term left out or halved)
    // cuts A and ranks B first. (The query's own term is ~1/250 of it: int16 codes.)
    const sign = Array.from({ length: 16 }, (_, i) => (i % 2 ? -1 : 1))
    const a = sign.map((s, i) => s * (i === 0 ? 127 : 126.49))
    const b = sign.map((s, i) => s * (i === 1 ? 120 : 127)) // on the grid: its codes are exact
    const copy = copyOf([b, a], [0, 1], true)
    const q = Float32Array.from(sign, (s) => 0.49 * s)
    const exact = bruteForce(copy, [q], {}, 2, false)
    expect(exact.map((r) => r.id)).toEqual([docId(1), docId(0)]) // A (document 1) is the nearer, by a hair
    expect(exact[0]!.similarity - exact[1]!.similarity).toBeLessThan(0.001)
    expect(rankDocuments(copy, [q], {}, 1, { boost: false }).map((r) => idOf(copy.columns, r.d))).toEqual([docId(1)])
  })

  test('the WebAssembly SIMD kernel and the JavaScript loop compute the same dot products', () => {
    const rows = 300
    const [simd, plain] = [createInt8Dots(rows, 400, {}), createInt8Dots(rows, 400, { simd: false })]
    for (let i = 0; i < rows * 400; i++) simd.codes[i] = plain.codes[i] = Math.floor(random() * 255) - 127
    for (let i = 0; i < 400; i++) simd.query[i] = plain.query[i] = Math.floor(random() * 65_535) - 32_767 // int16 query codes: the sums stay in int32
    simd.run(0, rows)
    plain.run(0, rows)
    expect(Array.from(simd.out)).toEqual(Array.from(plain.out))
    simd.run(17, 18) // one row alone, at an offset
    expect(simd.out[17]).toBe(plain.out[17]!)
    expect(new Set(plain.out).size).toBeGreaterThan(250)
  })

  for (const simd of [true, false]) {
    test(`the two-pass ranking equals a float scan of every chunk, near-duplicates included (${simd ? 'SIMD' : 'JavaScript'} kernel)`, () => {
      const dim = 72 // not a multiple of 16: rows are padded
      const copy = syntheticCopy(600, dim, simd)
      let compared = 0
      for (let k = 0; k < 12; k++) {
        // Half the queries sit right on a centre, where ~30 near-duplicates differ by far less than an int8 step.
        const base =
          k % 2 ? Array.from({ length: dim }, gaussian) : Array.from(copy.vectors.subarray(0, dim)).map((v) => v + 1e-5 * gaussian())
        const queries = k % 3 === 0 ? [Float32Array.from(base), Float32Array.from({ length: dim }, gaussian)] : [Float32Array.from(base)]
        for (const filter of [{}, { workspaceId: 'w2' }, { excludeDocument: docId(0) }] as DocumentFilter[]) {
          for (const limit of [1, 5, 10, 50]) {
            for (const boost of [true, false]) {
              const got = rankDocuments(copy, queries, filter, limit, { boost }).map(({ d, chunk, similarity, ranked }) => ({
                id: idOf(copy.columns, d),
                chunk: copy.chunkIds[chunk]!,
                similarity,
                ranked,
              }))
              expect(got).toEqual(bruteForce(copy, queries, filter, limit, boost))
              compared += got.length
            }
          }
          const threshold = bruteForce(copy, queries, filter, 8, false)[7]!.similarity
          const linked = rankDocuments(copy, queries, filter, 5, { boost: false, atLeast: threshold }).map((r) => idOf(copy.columns, r.d))
          expect(linked).toEqual(bruteForce(copy, queries, filter, 5, false, threshold).map((r) => r.id))
        }
      }
      expect(compared).toBe(12 * 3 * (1 + 5 + 10 + 50) * 2) // every list full: 600 documents, at least 300 in each workspace
    })
  }
})
