// Int8 dot products of one query against many rows of codes, in a WebAssembly SIMD kernel (16 lanes a step,
// written here as bytes: a dozen instructions do not justify a toolchain) or, where WebAssembly SIMD is missing,
// the same integer arithmetic in JavaScript. The cached vector index (vector-cache-rank.ts) scans its int8
// codes with it — a quarter of the float32 bytes to stream — and rescores the few candidates exactly in float.

/** Row width in codes: a multiple of 16 (one SIMD register), zero-padded past the vector's dimensions. */
export const paddedWidth = (dim: number) => Math.max(16, Math.ceil(dim / 16) * 16)

export interface Int8Dots {
  /** rows × width codes (chunk c at c × width); written once when the segment is built. */
  readonly codes: Int8Array
  /** The query's codes, int16 (what the kernel multiplies by the widened int8 codes); zero past its dimensions. */
  readonly query: Int16Array
  /** out[c] = query · codes of row c, for the rows of the last run. */
  readonly out: Int32Array
  readonly bytes: number
  /** Computes out[from…to) (rows from…to). */
  run(from: number, to: number): void
}

// (func (param $codes i32) (param $rows i32) (param $width i32) (param $query i32) (param $out i32)
//   for each row: acc = Σ over 16-code steps of i32x4.dot_i16x8_s(extend(codes), query) (low and high halves);
//   out[row] = acc's four lanes summed; codes += width)
const leb = (n: number) => {
  const out: number[] = []
  do {
    let byte = n & 0x7f
    n >>>= 7
    if (n) byte |= 0x80
    out.push(byte)
  } while (n)
  return out
}
const simd = (op: number) => [0xfd, ...leb(op)]
const [get, set, tee] = [(i: number) => [0x20, i], (i: number) => [0x21, i], (i: number) => [0x22, i]]
const [CODES, ROWS, WIDTH, QUERY, OUT, I, ACC, A] = [0, 1, 2, 3, 4, 5, 6, 7]
const load = (offset: number) => [...simd(0x00), 0, ...leb(offset)] // v128.load, align hint 1, offset
const queryAt = [...get(QUERY), ...get(I), 0x41, 1, 0x74, 0x6a] // query + 2i
const code = [
  2,
  1,
  0x7f,
  2,
  0x7b, // locals: i i32; acc, a v128
  0x02,
  0x40, // block $done
  0x03,
  0x40, // loop $rows
  ...get(ROWS),
  0x45,
  0x0d,
  1, // rows == 0 → done
  ...simd(0x0c),
  ...new Array(16).fill(0),
  ...set(ACC),
  0x41,
  0,
  ...set(I),
  0x03,
  0x40, // loop $cols
  ...get(CODES),
  ...get(I),
  0x6a,
  ...load(0),
  ...set(A),
  ...get(ACC),
  ...get(A),
  ...simd(0x87),
  ...queryAt,
  ...load(0),
  ...simd(0xba),
  ...simd(0xae), // acc += dot(extend_low(a), q[i…i+8))
  ...get(A),
  ...simd(0x88),
  ...queryAt,
  ...load(16),
  ...simd(0xba),
  ...simd(0xae), // acc += dot(extend_high(a), q[i+8…i+16))
  ...set(ACC),
  ...get(I),
  0x41,
  16,
  0x6a,
  ...tee(I),
  ...get(WIDTH),
  0x49,
  0x0d,
  0, // i += 16; i < width → cols
  0x0b, // end $cols
  ...get(OUT),
  ...get(ACC),
  ...simd(0x1b),
  0,
  ...get(ACC),
  ...simd(0x1b),
  1,
  0x6a,
  ...get(ACC),
  ...simd(0x1b),
  2,
  0x6a,
  ...get(ACC),
  ...simd(0x1b),
  3,
  0x6a,
  0x36,
  2,
  0, // i32.store
  ...get(OUT),
  0x41,
  4,
  0x6a,
  ...set(OUT),
  ...get(CODES),
  ...get(WIDTH),
  0x6a,
  ...set(CODES),
  ...get(ROWS),
  0x41,
  1,
  0x6b,
  ...set(ROWS),
  0x0c,
  0, // br $rows
  0x0b,
  0x0b, // end $rows, end $done
  0x0b, // end func
]
const section = (id: number, content: number[]) => [id, ...leb(content.length), ...content]
const name = (s: string) => [s.length, ...new TextEncoder().encode(s)]
const MODULE = new Uint8Array([
  0x00,
  0x61,
  0x73,
  0x6d,
  0x01,
  0x00,
  0x00,
  0x00,
  ...section(1, [1, 0x60, 5, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0]),
  ...section(2, [1, ...name('env'), ...name('memory'), 0x02, 0x00, 1]),
  ...section(3, [1, 0]),
  ...section(7, [1, ...name('dots'), 0x00, 0]),
  ...section(10, [1, ...leb(code.length), ...code]),
])

let compiled: WebAssembly.Module | null | undefined
function kernelModule(): WebAssembly.Module | null {
  if (compiled === undefined) {
    try {
      compiled = WebAssembly.validate(MODULE) ? new WebAssembly.Module(MODULE) : null
    } catch {
      compiled = null
    }
  }
  return compiled
}

/** A kernel over `rows` rows of `width` codes; `simd: false` forces the JavaScript loop (tests compare the two). */
export function createInt8Dots(rows: number, width: number, options: { simd?: boolean } = {}): Int8Dots {
  if (width % 16 !== 0) throw new Error(`int8 rows are padded to 16 codes, not ${width}`)
  const compiledModule = options.simd === false ? null : kernelModule()
  // Layout: query (int16) | out (int32 per row) | codes — each part 16-byte aligned.
  const queryBytes = width * 2
  const outAt = queryBytes
  const codesAt = outAt + Math.ceil((rows * 4) / 16) * 16
  const bytes = codesAt + rows * width
  if (compiledModule) {
    const memory = new WebAssembly.Memory({ initial: Math.max(1, Math.ceil(bytes / 65_536)) })
    const { dots } = new WebAssembly.Instance(compiledModule, { env: { memory } }).exports as {
      dots: (codes: number, rows: number, width: number, query: number, out: number) => void
    }
    return {
      codes: new Int8Array(memory.buffer, codesAt, rows * width),
      query: new Int16Array(memory.buffer, 0, width),
      out: new Int32Array(memory.buffer, outAt, rows),
      bytes,
      run: (from, to) => dots(codesAt + from * width, to - from, width, 0, outAt + from * 4),
    }
  }
  const codes = new Int8Array(rows * width)
  const query = new Int16Array(width)
  const out = new Int32Array(rows)
  return {
    codes,
    query,
    out,
    bytes,
    run(from, to) {
      for (let c = from; c < to; c++) {
        let s0 = 0
        let s1 = 0
        const at = c * width
        for (let i = 0; i < width; i += 2) {
          s0 = (s0 + query[i]! * codes[at + i]!) | 0
          s1 = (s1 + query[i + 1]! * codes[at + i + 1]!) | 0
        }
        out[c] = (s0 + s1) | 0
      }
    },
  }
}
