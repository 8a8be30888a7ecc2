// A seeded random generator for property tests: the same seed gives the same run, so a failure names its seed (or
// its step) and replays exactly. mulberry32 — small, fast and good enough to spread test cases.
export function seededRandom(seed: number) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  /** An integer in [0, n). */
  const int = (n: number) => Math.floor(next() * n)
  /** One of `xs`, uniformly. */
  const pick = <T>(xs: readonly T[]) => xs[int(xs.length)]!
  /** A random UUID-shaped id, from this generator so it replays too. */
  const uuid = () => [8, 4, 4, 4, 12].map((n) => Array.from({ length: n }, () => int(16).toString(16)).join('')).join('-')
  return { next, int, pick, uuid }
}
export type SeededRandom = ReturnType<typeof seededRandom>
