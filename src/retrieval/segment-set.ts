// The segments of a cached index, keyword or vector alike: an immutable base segment (a full load) and small delta
// segments beside it, one per catch-up with the log of changes, merged as they pile up. A document lives in one
// segment: a write to it marks it dead where it was and puts its new version in the new segment; a delete only
// marks it dead. A set is never changed once made: a catch-up makes a new one, so a search ranks one consistent state.
import { documentOf, type DocumentColumns } from './document-columns'

/** What a segment holds, whatever the index: its documents' columns, its bytes, and its weight (postings, chunks). */
export interface SegmentData {
  columns: DocumentColumns
  bytes: number
  weight: number
}

export interface Segment<S extends SegmentData> {
  data: S
  /** Documents of this segment replaced or deleted by a later write (1), or null when there are none. */
  dead: Uint8Array | null
  /** The same, as sorted document numbers. */
  deadList: Int32Array
  /** Counts over the segment's live documents, computed when first asked (the keyword index's live df by term). */
  live: Map<number, number>
}

export interface SegmentSet<S extends SegmentData> {
  /** The base first, then delta segments, oldest first. */
  segments: Segment<S>[]
  /** Documents of the base. */
  documents: number
  /** Documents the deltas hold live or marked dead in the base, and the weight the deltas hold: past a share of the base's, a reload pays. */
  deltaDocuments: number
  deltaWeight: number
  baseWeight: number
  /** Weight and bytes of every segment (dead documents' too). */
  weight: number
  bytes: number
}

/** Delta segments kept before the newest are merged whatever their sizes (while the merge stays small). */
const MAX_DELTAS = 8
/** Live documents a merge makes at most: a merge runs in a search's catch-up, so it stays a few milliseconds. */
const MERGE_MAX_DOCUMENTS = 5_000

export function segmentOf<S extends SegmentData>(data: S): Segment<S> {
  return { data, dead: null, deadList: new Int32Array(0), live: new Map() }
}

export const liveDocuments = <S extends SegmentData>(s: Segment<S>) => s.data.columns.count - s.deadList.length

export function setOf<S extends SegmentData>(segments: Segment<S>[]): SegmentSet<S> {
  let [deltaDocuments, deltaWeight, weight, bytes] = [segments[0]!.deadList.length, 0, 0, 0]
  segments.forEach((s, i) => {
    weight += s.data.weight
    bytes += s.data.bytes + (s.dead?.byteLength ?? 0) + s.deadList.byteLength
    if (i > 0) (deltaDocuments += liveDocuments(s)), (deltaWeight += s.data.weight)
  })
  const base = segments[0]!.data
  return { segments, documents: base.columns.count, deltaDocuments, deltaWeight, baseWeight: base.weight, weight, bytes }
}

/**
 * The segments with a write applied: `changed` marked dead wherever they live, `added` (their new versions) as a new
 * segment, and delta segments merged as in a log-structured merge — while the newest holds at least half the live
 * documents of the one before it, or more than MAX_DELTAS pile up, the two become one by `merge` (which drops their
 * dead documents), so a catch-up costs what it brings and a search visits a few segments. Merges stay small;
 * deltas past that are for the full reload the set's share of deltas has started by then.
 */
export function withSegment<S extends SegmentData>(
  segments: Segment<S>[],
  changed: string[],
  added: S | null,
  merge: (older: Segment<S>, newer: Segment<S>) => S,
): Segment<S>[] {
  const ids = [...new Set(changed)]
  const out = segments.map((s) => markedDead(s, ids))
  if (added) out.push(segmentOf(added))
  while (out.length > 2) {
    const [older, newer] = [out[out.length - 2]!, out[out.length - 1]!]
    if (liveDocuments(older) + liveDocuments(newer) > MERGE_MAX_DOCUMENTS) break
    if (out.length - 1 <= MAX_DELTAS && 2 * liveDocuments(newer) < liveDocuments(older)) break
    out.splice(out.length - 2, 2, segmentOf(merge(older, newer)))
  }
  return out
}

function markedDead<S extends SegmentData>(segment: Segment<S>, ids: string[]): Segment<S> {
  const { data, dead } = segment
  const hit: number[] = []
  for (const id of ids) {
    const d = documentOf(data.columns, id)
    if (d >= 0 && !dead?.[d]) hit.push(d)
  }
  if (hit.length === 0) return segment
  const next = dead ? dead.slice() : new Uint8Array(data.columns.count)
  for (const d of hit) next[d] = 1
  const deadList = new Int32Array(segment.deadList.length + hit.length)
  deadList.set(segment.deadList)
  deadList.set(hit, segment.deadList.length)
  deadList.sort()
  return { data, dead: next, deadList, live: new Map() }
}
