// Int8 codes of float vectors with a scale per vector, and what bounds their error: v = s·code + e, with
// |e| known per vector. Then for a query q = s_q·Q + e_q (int16 codes), q·v = s_q·s·(Q·code) ± (|q|·|e| + |e_q|·|s·code|)
// (Cauchy–Schwarz on q·v − q̂·v̂ = q·e + e_q·v̂): an interval that surely holds the exact dot product, so a scan
// of the codes can tell which vectors cannot reach the top-k and leave only the others to rescore in float.
import { createInt8Dots, paddedWidth, type Int8Dots } from './int8-dots'

export interface VectorCodes {
  dots: Int8Dots
  /** Per row: the scale s (max |v_i| / 127), |e| and |s·code|. */
  scale: Float64Array
  errorNorm: Float64Array
  codedNorm: Float64Array
}

/** Codes of rows × dim floats (a zero row gets scale 0 and zero codes). */
export function encodeRows(vectors: Float32Array, rows: number, dim: number, options: { simd?: boolean } = {}): VectorCodes {
  const width = paddedWidth(dim)
  const dots = createInt8Dots(rows, width, options)
  const scale = new Float64Array(rows)
  const errorNorm = new Float64Array(rows)
  const codedNorm = new Float64Array(rows)
  for (let r = 0; r < rows; r++) {
    const at = r * dim
    const s = maxAbs(vectors, at, dim) / 127
    let ee = 0
    let cc = 0
    if (s > 0) {
      for (let i = 0; i < dim; i++) {
        const code = Math.round(vectors[at + i]! / s)
        dots.codes[r * width + i] = code
        const coded = s * code
        ee += (vectors[at + i]! - coded) ** 2
        cc += coded * coded
      }
    }
    scale[r] = s
    errorNorm[r] = Math.sqrt(ee)
    codedNorm[r] = Math.sqrt(cc)
  }
  return { dots, scale, errorNorm, codedNorm }
}

/**
 * Writes q's codes into dots.query; its scale, |q| and |e_q|. The query gets int16 codes, as fine as the kernel's
 * int32 sums allow (width × 127 × max code < 2³¹: 32,767 up to 528 dimensions, 5,504 at 3,072), so its own error
 * is ~1/250 of a chunk's and the interval is almost all the chunk's rounding.
 */
export function encodeQuery(dots: Int8Dots, q: Float32Array): { scale: number; norm: number; errorNorm: number } {
  const steps = Math.min(32_767, Math.floor((2 ** 31 - 1) / (127 * dots.query.length)))
  const s = maxAbs(q, 0, q.length) / steps
  let qq = 0
  let ee = 0
  dots.query.fill(0)
  for (let i = 0; i < q.length; i++) {
    const code = s > 0 ? Math.round(q[i]! / s) : 0
    dots.query[i] = code
    qq += q[i]! * q[i]!
    ee += (q[i]! - s * code) ** 2
  }
  return { scale: s, norm: Math.sqrt(qq), errorNorm: Math.sqrt(ee) }
}

function maxAbs(v: Float32Array, at: number, n: number): number {
  let m = 0
  for (let i = 0; i < n; i++) m = Math.max(m, Math.abs(v[at + i]!))
  return m
}

export const codesBytes = (codes: VectorCodes) => codes.dots.bytes + codes.scale.byteLength * 3
