import { describe, expect, test } from 'bun:test'
import { refinedQuery } from './feedback'

const unit = (v: number[]) => v.map((x) => x / Math.hypot(...v))
const dot = (a: number[], b: ArrayLike<number>) => a.reduce((s, x, i) => s + x * b[i]!, 0)

describe('hybrid feedback: the query moved toward the first result', () => {
  test('moves toward the chunk of the first result nearest the query, and stays a unit vector', () => {
    const query = unit([1, 0.2, 0])
    const near = Float32Array.from(unit([0.8, 0.6, 0]))
    const far = Float32Array.from(unit([0, 0, 1]))
    const refined = refinedQuery(query, [far, near], 0.6)!
    expect(Math.hypot(...refined)).toBeCloseTo(1, 6)
    expect(dot(refined, near)).toBeGreaterThan(dot(query, near)) // nearer the chunk it was moved toward
    expect(dot(refined, far)).toBeCloseTo(0, 6) // the other chunk plays no part
    const expected = unit(query.map((q, i) => q + 0.6 * near[i]!))
    refined.forEach((x, i) => expect(x).toBeCloseTo(expected[i]!, 6))
  })

  test('a larger weight moves it further', () => {
    const query = unit([1, 0, 0])
    const chunk = Float32Array.from(unit([0, 1, 0]))
    const a = refinedQuery(query, [chunk], 0.3)!
    const b = refinedQuery(query, [chunk], 1)!
    expect(dot(b, chunk)).toBeGreaterThan(dot(a, chunk))
  })

  test('nothing to feed back: no chunk vectors (not embedded yet), or vectors of another dimension', () => {
    expect(refinedQuery(unit([1, 0, 0]), [], 0.6)).toBeNull()
    expect(refinedQuery(unit([1, 0, 0]), [Float32Array.from([1, 0])], 0.6)).toBeNull()
  })

  test('a chunk pointing exactly away cancels nothing into NaN: a zero sum gives no refined query', () => {
    expect(refinedQuery([1, 0], [Float32Array.from([-1, 0])], 1)).toBeNull()
  })
})
