// A user's keyword copy as searches see it: an immutable base segment (a full load) and small delta segments
// beside it, one per catch-up with the log of changes (keyword-memory-delta.ts), merged as they pile up. A
// document lives in one segment: a write to it tombstones it where it was and puts its new version in the new
// segment; a delete only tombstones. Corpus statistics (n, avgdl) are the current corpus's, from the same
// snapshot as the changes; document frequencies are counted over live documents (keyword-memory-words.ts).
// A copy is never changed once made: a catch-up makes a new one, so a search ranks one consistent state.
import type { ChangedDocument } from './keyword-memory-delta'
import { IndexBuilder } from './keyword-memory-build'
import { documentOf, idOf, tfOf, type UserIndex } from './keyword-memory-index'

export interface Segment {
  index: UserIndex
  /** Documents of this segment replaced or deleted by a later write (1), or null when there are none. */
  dead: Uint8Array | null
  /** The same, as sorted document numbers. */
  deadList: Int32Array
  /** Live postings a term has here, by term number (computed when a query first asks). */
  liveDf: Map<number, number>
}

export interface KeywordCopy {
  version: number
  /** The current corpus: documents with keyword length > 0 and their average length, as keyword_stats says. */
  n: number
  avgdl: number
  /** The base first, then delta segments, oldest first. */
  segments: Segment[]
  /** Documents the deltas hold or tombstoned in the base, and postings they hold: past a share, a reload pays. */
  deltaDocuments: number
  deltaPostings: number
  /** Postings held in all segments (tombstoned ones too) and the bytes of it all. */
  postings: number
  bytes: number
}

export interface CorpusStats {
  documents: number
  totalLen: number
}

/** Delta segments kept before the newest are merged whatever their sizes (while the merge stays small). */
const MAX_DELTAS = 8
/** Live documents a merge makes at most: a merge runs in a search's catch-up, so it stays a few milliseconds. */
const MERGE_MAX_DOCUMENTS = 5_000

export function segmentOf(index: UserIndex): Segment {
  return { index, dead: null, deadList: new Int32Array(0), liveDf: new Map() }
}

export function copyOf(version: number, stats: CorpusStats, segments: Segment[]): KeywordCopy {
  const n = Math.max(stats.documents, 1)
  return assemble(version, n, Math.max(stats.totalLen / n, 1), segments)
}

/** A copy of one index alone, at its own corpus statistics. */
export const copyOfIndex = (index: UserIndex): KeywordCopy => assemble(index.version, index.n, index.avgdl, [segmentOf(index)])

function assemble(version: number, n: number, avgdl: number, segments: Segment[]): KeywordCopy {
  let [deltaDocuments, deltaPostings, postings, bytes] = [segments[0]!.deadList.length, 0, 0, 0]
  segments.forEach((s, i) => {
    postings += s.index.postings
    bytes += s.index.bytes + (s.dead?.byteLength ?? 0) + s.deadList.byteLength
    if (i > 0) (deltaDocuments += s.index.count - s.deadList.length), (deltaPostings += s.index.postings)
  })
  return { version, n, avgdl, segments, deltaDocuments, deltaPostings, postings, bytes }
}

/** The copy brought to `version`: `changed` tombstoned wherever they live, `current` added as a new segment. */
export function withChanges(
  copy: KeywordCopy,
  version: number,
  stats: CorpusStats,
  changed: string[],
  current: ChangedDocument[],
): KeywordCopy {
  const ids = [...new Set(changed)]
  const docs = [...new Map(current.map((d) => [d.id, d])).values()]
  let segments = copy.segments.map((s) => tombstoned(s, ids))
  if (docs.length > 0) segments.push(segmentOf(build(docs, version, stats)))
  segments = tiered(segments, version, stats)
  return copyOf(version, stats, segments)
}

function tombstoned(segment: Segment, ids: string[]): Segment {
  const { index, dead } = segment
  const hit: number[] = []
  for (const id of ids) {
    const d = documentOf(index, id)
    if (d >= 0 && !dead?.[d]) hit.push(d)
  }
  if (hit.length === 0) return segment
  const next = dead ? dead.slice() : new Uint8Array(index.count)
  for (const d of hit) next[d] = 1
  const deadList = new Int32Array(segment.deadList.length + hit.length)
  deadList.set(segment.deadList)
  deadList.set(hit, segment.deadList.length)
  deadList.sort()
  return { index, dead: next, deadList, liveDf: new Map() }
}

/**
 * Delta segments merged as in a log-structured merge: while the newest holds at least half the live documents of
 * the one before it, the two become one (dropping their tombstoned documents), so a catch-up costs what it
 * brings and a search visits a few segments. Merges stay small; deltas past that are for the full reload the
 * copy's share of deltas has started by then.
 */
function tiered(segments: Segment[], version: number, stats: CorpusStats): Segment[] {
  const live = (s: Segment) => s.index.count - s.deadList.length
  const out = [...segments]
  while (out.length > 2) {
    const [older, newer] = [out[out.length - 2]!, out[out.length - 1]!]
    if (live(older) + live(newer) > MERGE_MAX_DOCUMENTS) break
    if (out.length - 1 <= MAX_DELTAS && 2 * live(newer) < live(older)) break
    out.splice(out.length - 2, 2, segmentOf(build([...liveDocuments(older), ...liveDocuments(newer)], version, stats)))
  }
  return out
}

/** A segment of these documents (their postings in the same snapshot). */
export function build(docs: ChangedDocument[], version: number, stats: CorpusStats): UserIndex {
  const sorted = [...docs].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  const builder = new IndexBuilder(
    sorted,
    sorted.reduce((n, d) => n + (d.postings?.length ?? 0), 0),
  )
  const byTerm = new Map<string, (string | number)[]>()
  for (const doc of sorted) {
    for (const [term, tf, dl] of doc.postings ?? []) {
      const list = byTerm.get(term)
      if (list) list.push(doc.id, tf, dl)
      else byTerm.set(term, [doc.id, tf, dl])
    }
  }
  for (const [term, flat] of byTerm) builder.addTerm(term, flat)
  return builder.build(version, stats)
}

/** A segment's live documents with their postings, as a catch-up would have read them. */
export function liveDocuments(segment: Segment): ChangedDocument[] {
  const { index, dead } = segment
  const docs: ChangedDocument[] = []
  const at = new Int32Array(index.count).fill(-1)
  for (let d = 0; d < index.count; d++) {
    if (dead?.[d]) continue
    const tags: string[] = []
    for (let i = index.tagStart[d]!; i < index.tagStart[d + 1]!; i++) tags.push(index.names.tag[index.tagCodes[i]!]!)
    at[d] = docs.length
    docs.push({
      id: idOf(index, d),
      // Only whether a document is active matters to ranking.
      status: index.active[d] ? 'active' : 'inactive',
      workspace_id: index.names.workspace[index.workspace[d]!]!,
      kind: index.names.kind[index.kind[d]!]!,
      source: index.names.source[index.source[d]!]!,
      tags,
      pinned: index.pinned[d] === 1,
      rating: index.rating[d]!,
      occurred_at: index.occurred[d]!,
      postings: [],
    })
  }
  for (let t = 0; t < index.terms; t++) {
    const term = String.fromCharCode(...index.termChars.subarray(index.termAt[t]!, index.termAt[t + 1]!))
    for (let p = index.postingAt[t]!; p < index.postingAt[t + 1]!; p++) {
      const d = index.docs[p]!
      if (at[d]! >= 0) docs[at[d]!]!.postings!.push([term, tfOf(index, p), index.dl[d]!])
    }
  }
  return docs
}

/** How many live documents of this segment hold term t. */
export function liveCount(segment: Segment, t: number): number {
  const { index, dead, deadList } = segment
  const [from, to] = [index.postingAt[t]!, index.postingAt[t + 1]!]
  if (!dead) return to - from
  const cached = segment.liveDf.get(t)
  if (cached !== undefined) return cached
  let gone = 0
  if (deadList.length * Math.log2(to - from + 2) < to - from) {
    // Few tombstones: look each up in the list.
    for (const d of deadList) {
      let [lo, hi] = [from, to]
      while (lo < hi) {
        const mid = (lo + hi) >>> 1
        if (index.docs[mid]! < d) lo = mid + 1
        else hi = mid
      }
      if (lo < to && index.docs[lo] === d) gone++
    }
  } else {
    for (let p = from; p < to; p++) gone += dead[index.docs[p]!]!
  }
  if (segment.liveDf.size > 10_000) segment.liveDf.clear()
  segment.liveDf.set(t, to - from - gone)
  return to - from - gone
}
