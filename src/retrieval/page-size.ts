// How many rows a load reads per statement, adapted to how long the last page took: PGlite runs a statement on the
// process's one thread, so one page of a load is what every request may wait behind — a fixed page of 4,000 terms
// held it 40–200 ms at 10,000 documents (2 loaded cores), more as a corpus grows. Pages aim at TARGET_MS each; the
// load takes a few more statements, and nobody waits long for one.
const TARGET_MS = 15

export class PageSize {
  constructor(
    private size: number,
    private readonly min: number,
    private readonly max: number,
  ) {}

  get rows(): number {
    return this.size
  }

  /** The last page of `rows` took `ms`: the next aims at TARGET_MS, changing at most 2× a page. */
  took(ms: number): void {
    const scaled = this.size * Math.min(2, Math.max(0.5, TARGET_MS / Math.max(ms, 0.1)))
    this.size = Math.round(Math.min(this.max, Math.max(this.min, scaled)))
  }
}
