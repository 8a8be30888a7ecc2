// The keyword index as a source of the index cache (index-cache.ts): a user's postings and document fields read
// into segments of typed arrays (keyword-cache-segment.ts), so BM25 runs with dynamic pruning over memory
// (keyword-cache-rank.ts) instead of over SQL rows (~7 µs a posting on PGlite). A load reads terms in pages, so
// other queries interleave with it, and stops as soon as it would pass its byte budget; the pages are not one
// snapshot, so the index is labelled with the version read first and the catch-up that follows replaces every
// document written meanwhile. A catch-up reads, in one statement (change-logs.ts), the corpus statistics now, which
// documents changed, and the fields and postings of those that still exist (changes of vectors alone move the
// version but bring no document: the index holds no vectors).
// Corpus statistics (n, avgdl) are the current corpus's, from the same snapshot as the changes; document
// frequencies are counted over live documents (keyword-cache-words.ts).
import { inSlices } from './slices'
import { sql } from 'drizzle-orm'
import { queryRows, type Tx } from '../../db/client'
import { changesSince, versionNow } from './change-logs'
import { type DocumentFields, loadDocumentFields, type NumberedFields } from './document-fields'
import type { IndexSource } from './index-cache'
import { buildSegment, IndexBuilder, type ChangedDocument } from './keyword-cache-build'
import { mergeSegments } from './keyword-cache-merge'
import { atOnce } from './slices'
import { PageSize } from './page-size'
import type { KeywordSegment } from './keyword-cache-segment'
import { segmentOf, setOf, withSegment, type Segment, type SegmentSet } from './segment-set'

export type { ChangedDocument } from './keyword-cache-build'

export interface KeywordIndex extends SegmentSet<KeywordSegment> {
  key: ''
  version: number
  /** The current corpus: documents with keyword length > 0 and their average length, as keyword_stats says. */
  n: number
  avgdl: number
  /** Postings held in all segments (dead documents' too). */
  postings: number
}

export interface CorpusStats {
  documents: number
  totalLen: number
}

export interface KeywordChanges extends CorpusStats {
  version: number
  /** Every document that changed since the index's version, existing or gone. */
  changed: string[]
  /** Those that exist, as they are now. */
  current: ChangedDocument[]
}

/** Terms per query of a load: a first page, and the bounds the page's time moves it within (page-size.ts). */
const TERMS_PAGE = { first: 500, min: 50, max: 8_000 }

/** BM25's corpus from the statistics: documents (at least 1) and their average length (at least 1). */
export function corpusOf(stats: CorpusStats): { n: number; avgdl: number } {
  const n = Math.max(stats.documents, 1)
  return { n, avgdl: Math.max(stats.totalLen / n, 1) }
}

export function indexOf(version: number, stats: CorpusStats, segments: Segment<KeywordSegment>[]): KeywordIndex {
  const { n, avgdl } = corpusOf(stats)
  return assemble(version, n, avgdl, segments)
}

/** An index of one segment alone, at its own corpus statistics. */
export const indexOfSegment = (segment: KeywordSegment): KeywordIndex =>
  assemble(segment.version, segment.n, segment.avgdl, [segmentOf(segment)])

function assemble(version: number, n: number, avgdl: number, segments: Segment<KeywordSegment>[]): KeywordIndex {
  const set = setOf(segments)
  return { ...set, key: '', version, n, avgdl, postings: set.weight }
}

/** The index brought to `version`: `changed` marked dead wherever they live, `current` added as a new segment. */
export function withChanges(
  index: KeywordIndex,
  version: number,
  stats: CorpusStats,
  changed: string[],
  current: ChangedDocument[],
): KeywordIndex {
  const docs = [...new Map(current.map((d) => [d.id, d])).values()]
  const added = docs.length > 0 ? buildSegment(docs, version, stats) : null
  const merge = (older: Segment<KeywordSegment>, newer: Segment<KeywordSegment>) =>
    atOnce(mergeSegments([older, newer], version, corpusOf(stats)))
  return indexOf(version, stats, withSegment(index.segments, changed, added, merge))
}

async function loadKeywordIndex(db: Tx, userId: string, maxBytes: number): Promise<KeywordIndex | { tooLarge: number } | null> {
  const stats = await versionNow(db, userId)
  if (!stats) return null
  // Postings name documents by number (documents.doc_no).
  const numberOf = (d: DocumentFields) => ((d as NumberedFields).doc_no === null ? null : String((d as NumberedFields).doc_no))
  const builder = new IndexBuilder(await loadDocumentFields(db, userId), undefined, numberOf)
  const page = new PageSize(TERMS_PAGE.first, TERMS_PAGE.min, TERMS_PAGE.max)
  let after: string | null = null
  for (;;) {
    // A term's postings come as three strings — numbers, tfs, lengths — in number order (db/functions/keyword-load-page.sql).
    const limit = page.rows
    const started = performance.now()
    const rows: { term: string; nos: string; tfs: string; dls: string }[] = await queryRows(
      db,
      sql`select term, nos, tfs, dls from keyword_load_page(${userId}, ${after}::text, ${limit})`,
    )
    page.took(performance.now() - started)
    for (const { term, nos, tfs, dls } of rows) builder.addTerm(term, interleaved(nos.split(' '), tfs.split(' '), dls.split(' ')))
    if (builder.bytes > maxBytes) return { tooLarge: builder.bytes }
    if (rows.length < limit) break
    after = rows[rows.length - 1]!.term
  }
  // Its end in slices too: at 100,000 documents it copies and bounds ~10 million postings.
  const segment = await inSlices(builder.buildInSteps(stats.version, stats))
  return segment.bytes > maxBytes ? { tooLarge: segment.bytes } : indexOf(stats.version, stats, [segmentOf(segment)])
}

/** Columns as addTerm takes them: number, tf, length, number, tf, length…. */
function interleaved(nos: string[], tfs: string[], dls: string[]): string[] {
  const flat = new Array<string>(3 * nos.length)
  for (let i = 0; i < nos.length; i++) {
    flat[3 * i] = nos[i]!
    flat[3 * i + 1] = tfs[i]!
    flat[3 * i + 2] = dls[i]!
  }
  return flat
}

/** A changed document as the log sends it: its fields, its terms with their tfs, and its length. */
type LoggedDocument = Omit<ChangedDocument, 'postings'> & { terms: string[] | null; tfs: number[] | null; dl: number }

const withPostings = ({ terms, tfs, dl, ...fields }: LoggedDocument): ChangedDocument => ({
  ...fields,
  postings: terms && tfs ? terms.map((term, i) => [term, tfs[i]!, dl]) : null,
})

export const keywordSource: IndexSource<KeywordIndex, KeywordChanges> = {
  name: 'keyword index',
  search: 'keyword search',
  setting: 'KEYWORD_MEMORY_MAX_BYTES',
  stats: versionNow,
  load: (db, userId, _key, maxBytes) => loadKeywordIndex(db, userId, maxBytes),
  changesSince: async (db, userId, index, maxDocuments) => {
    const changes = await changesSince<LoggedDocument>(db, userId, index.version, null, maxDocuments)
    if (!changes || 'incomplete' in changes) return changes
    return { ...changes, current: changes.current.map(withPostings) }
  },
  apply: (index, changes) => withChanges(index, changes.version, changes, changes.changed, changes.current),
  compact: function* (index) {
    const segment = yield* mergeSegments(index.segments, index.version, index)
    return assemble(index.version, index.n, index.avgdl, [segmentOf(segment)])
  },
}
