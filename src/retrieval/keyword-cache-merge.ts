// Merges segments of a cached keyword index into one, array to array: the live documents of each, in id order (a
// k-way merge of their sorted ids), the union of their term dictionaries (a k-way merge of sorted terms), and each
// term's postings renumbered and merged in document order — what a build from the same documents gives, without
// turning a posting into an object. Delta segments merge this way as they pile up (keyword-cache.ts), and a whole
// index compacts this way instead of reloading from the database once its deltas grow (index-cache.ts). A merge
// is a generator: it yields every few thousand postings, so a caller can run it in slices between requests.
import { compareIds, pickColumns } from './document-columns'
import { blockBounds, completeSegment } from './keyword-cache-build'
import { TF_OVERFLOW, type KeywordSegment } from './keyword-cache-segment'
import type { Segment } from './segment-set'

/** Postings merged between two yields. */
const STEP = 20_000

/** One segment of the live documents of `parts` (which hold distinct documents), at the corpus statistics given. */
export function* mergeSegments(
  parts: Segment<KeywordSegment>[],
  version: number,
  corpus: { n: number; avgdl: number },
): Generator<void, KeywordSegment> {
  const { renumbered, pickedParts, pickedDocs } = yield* documentOrder(parts)
  const count = pickedParts.length
  const from = parts.map((p) => p.data)
  const dl = new Float32Array(count)
  for (let i = 0; i < count; i++) dl[i] = from[pickedParts[i]!]!.dl[pickedDocs[i]!]!
  yield

  const upper = from.reduce((n, s) => n + s.postings, 0)
  const docs = new Int32Array(upper)
  const tf = new Uint16Array(upper)
  const tfOverflow = new Map<number, number>()
  const termList: { part: number; t: number }[] = []
  const postingAt: number[] = [0]
  let [p, sinceYield] = [0, 0]
  for (const holders of termOrder(from)) {
    const start = p
    // Each part's postings of the term, renumbered (ascending: renumbering keeps a part's id order), merged.
    const at = holders.map(({ part, t }) => from[part]!.postingAt[t]!)
    const end = holders.map(({ part, t }) => from[part]!.postingAt[t + 1]!)
    for (;;) {
      let best = -1
      let bestDoc = 0
      for (let h = 0; h < holders.length; h++) {
        const map = renumbered[holders[h]!.part]!
        while (at[h]! < end[h]! && map[from[holders[h]!.part]!.docs[at[h]!]!]! < 0) at[h]!++
        if (at[h]! === end[h]!) continue
        const doc = map[from[holders[h]!.part]!.docs[at[h]!]!]!
        if (best < 0 || doc < bestDoc) (best = h), (bestDoc = doc)
      }
      if (best < 0) break
      const segment = from[holders[best]!.part]!
      const q = at[best]!++
      docs[p] = bestDoc
      tf[p] = segment.tf[q]!
      if (segment.tf[q] === TF_OVERFLOW) tfOverflow.set(p, segment.tfOverflow.get(q)!)
      p++
    }
    if (p > start) termList.push(holders[0]!), postingAt.push(p)
    if ((sinceYield += p - start + holders.length) >= STEP) (sinceYield = 0), yield
  }

  const terms = termList.length
  const termAt = new Int32Array(terms + 1)
  for (let t = 0; t < terms; t++) {
    const { part, t: src } = termList[t]!
    termAt[t + 1] = termAt[t]! + from[part]!.termAt[src + 1]! - from[part]!.termAt[src]!
  }
  const termChars = new Uint16Array(termAt[terms]!)
  for (let t = 0; t < terms; t++) {
    const { part, t: src } = termList[t]!
    termChars.set(from[part]!.termChars.subarray(from[part]!.termAt[src]!, from[part]!.termAt[src + 1]!), termAt[t]!)
  }
  yield
  const positions = Int32Array.from(postingAt)
  const [postings, tfs] = [docs.slice(0, p), tf.slice(0, p)]
  const blocks = yield* blockBounds(positions, postings, tfs, tfOverflow, dl, corpus.avgdl)
  yield
  const columns = pickColumns(
    from.map((s) => s.columns),
    pickedParts,
    pickedDocs,
  )
  yield
  return completeSegment({
    version,
    ...corpus,
    columns,
    dl,
    termChars,
    termAt,
    postingAt: positions,
    docs: postings,
    tf: tfs,
    tfOverflow,
    ...blocks,
    terms,
  })
}

/**
 * The merged documents in id order (each part's live documents are already in id order: a k-way merge), and each
 * part's document numbers renumbered into them (-1: dead).
 */
function* documentOrder(parts: Segment<KeywordSegment>[]) {
  const renumbered = parts.map((s) => new Int32Array(s.data.columns.count).fill(-1))
  const live = parts.reduce((n, s) => n + s.data.columns.count - s.deadList.length, 0)
  const [pickedParts, pickedDocs] = [new Int32Array(live), new Int32Array(live)]
  const next = parts.map(() => 0)
  const skipDead = (k: number) => {
    const { data, dead } = parts[k]!
    while (next[k]! < data.columns.count && dead?.[next[k]!]) next[k]!++
  }
  parts.forEach((_, k) => skipDead(k))
  for (let i = 0; i < live; i++) {
    let best = -1
    for (let k = 0; k < parts.length; k++) {
      if (next[k]! >= parts[k]!.data.columns.count) continue
      if (best < 0 || compareIds(parts[k]!.data.columns, next[k]!, parts[best]!.data.columns, next[best]!) < 0) best = k
    }
    const d = next[best]!++
    renumbered[best]![d] = i
    pickedParts[i] = best
    pickedDocs[i] = d
    skipDead(best)
    if (i % STEP === STEP - 1) yield
  }
  return { renumbered, pickedParts, pickedDocs }
}

/** The union of the parts' terms in code-unit order, each with the parts holding it (a k-way merge). */
function* termOrder(from: KeywordSegment[]): Generator<{ part: number; t: number }[]> {
  const next = from.map(() => 0)
  for (;;) {
    let holders: { part: number; t: number }[] = []
    for (let k = 0; k < from.length; k++) {
      if (next[k]! >= from[k]!.terms) continue
      const order = holders.length === 0 ? -1 : compareTerms(from[k]!, next[k]!, from[holders[0]!.part]!, holders[0]!.t)
      if (order < 0) holders = [{ part: k, t: next[k]! }]
      else if (order === 0) holders.push({ part: k, t: next[k]! })
    }
    if (holders.length === 0) return
    for (const { part } of holders) next[part]!++
    yield holders
  }
}

/** Compares term a of `x` with term b of `y` in code-unit order. */
function compareTerms(x: KeywordSegment, a: number, y: KeywordSegment, b: number): number {
  const [xFrom, xTo, yFrom, yTo] = [x.termAt[a]!, x.termAt[a + 1]!, y.termAt[b]!, y.termAt[b + 1]!]
  const n = Math.min(xTo - xFrom, yTo - yFrom)
  for (let i = 0; i < n; i++) {
    const diff = x.termChars[xFrom + i]! - y.termChars[yFrom + i]!
    if (diff) return diff
  }
  return xTo - xFrom - (yTo - yFrom)
}
