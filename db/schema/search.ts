// The keyword index: each user's postings in blocks a term — the documents holding the term (by their doc_no), the
// term's weighted frequency in each and each one's length — so its size follows the user's distinct terms, not one
// row a term a document. Document frequencies are the blocks' counts, corpus size and average length live in
// keyword_stats, so BM25 statistics are exact after every write (see src/retrieval/keyword.ts).
import {
  bigint,
  boolean,
  customType,
  doublePrecision,
  index,
  integer,
  pgTable,
  pgView,
  primaryKey,
  real,
  smallint,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core'
import { users } from './users'

/** Byte-order collation, so `term LIKE 'pre%'` can use the primary-key btree for prefix matching. */
const termText = customType<{ data: string }>({ dataType: () => 'text collate "C"' })

/** Numbers stored as a Postgres array, read and written as JS arrays. */
const integers = customType<{ data: number[] }>({ dataType: () => 'integer[]' })
const reals = customType<{ data: number[] }>({ dataType: () => 'real[]' })

/**
 * A block of a term's postings: `n` documents by doc_no ascending, each with the term's tf (occurrences in the body
 * plus TITLE_WEIGHT × occurrences in title and tags) and the document's BM25 length (documents.keyword_len). A
 * user's blocks of a term cover disjoint ranges of doc_no — a document's posting of a term is in the block with the
 * greatest first_no at or below its doc_no — since each write takes the next numbers of its user (keyword_stats.
 * last_no, locked until it commits) and writes one block a term; compaction (db/functions/compact-term-blocks.sql)
 * merges a term's newest small blocks into blocks of up to 256. No foreign keys: written only with their documents,
 * and a trigger on documents takes a deleted document's postings out (db/functions/postings-cascade.sql).
 *
 * Partitioned by `merged` (migration 0050; drizzle does not declare partitions): the blocks of completed ranges,
 * written once by a merge and only thinned by deletions, in term_blocks_main; every write's small blocks and the
 * merges of a range still filling, each deleted by the next merge, in term_blocks_tail. The dead rows merges leave
 * are all in the tail, so the VACUUM after a merge reads and writes the tail — a range's worth — rather than every
 * page of the whole index (one such VACUUM wrote 199 MB of log at 83,000 documents, past the log's bound).
 */
export const termBlocks = pgTable(
  'term_blocks',
  {
    user_id: uuid('user_id').notNull(),
    term: termText('term').notNull(),
    first_no: integer('first_no').notNull(),
    /** How many postings the block holds: a term's document frequency is the sum over its blocks, read unopened. */
    n: smallint('n').notNull(),
    doc_nos: integers('doc_nos').notNull(),
    tfs: reals('tfs').notNull(),
    dls: reals('dls').notNull(),
    /** A block of a completed range, never merged again (term_blocks_main), or one a merge will replace (term_blocks_tail). */
    merged: boolean('merged').notNull().default(false),
  },
  // The partition key is part of the key, as PostgreSQL requires; the blocks' ranges are disjoint across both.
  (t) => [primaryKey({ columns: [t.user_id, t.term, t.first_no, t.merged] })],
)

/**
 * The postings one a row (db/functions/postings-view.sql): for reading and checking, never for ranking — the blocks
 * opened, each posting with its document's id (null for a posting whose document is gone, which must never be).
 */
export const postings = pgView('postings', {
  user_id: uuid('user_id').notNull(),
  term: text('term').notNull(),
  document_id: uuid('document_id'),
  doc_no: integer('doc_no').notNull(),
  tf: real('tf').notNull(),
  dl: real('dl').notNull(),
}).existing()

/**
 * Each document's terms with their tfs — its postings, one row a document — so a deletion and a re-index find the
 * blocks holding its postings, and the keyword copy's catch-up reads a changed document in one row. Written and
 * deleted with the blocks, by the same statements; no foreign keys, as term_blocks.
 */
export const documentTerms = pgTable('document_terms', {
  document_id: uuid('document_id').primaryKey(),
  user_id: uuid('user_id').notNull(),
  /** Compared to term_blocks.term COLLATE "C" (the blocks' collation), so the primary key serves each lookup. */
  terms: text('terms').array().notNull(),
  /**
   * Each term's tf, in the order of `terms`: a cached index catching up reads a changed document's postings from
   * this one row (index_changes_since).
   */
  tfs: real('tfs').array().notNull(),
})

/**
 * Corpus statistics per user for BM25 (document count and total length of keyword-indexed documents), kept exact by
 * triggers on documents (db/functions/keyword-stats.sql), so deletes by cascade count too; and the version of what
 * the user's cached indexes hold.
 */
export const keywordStats = pgTable('keyword_stats', {
  user_id: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  documents: integer('documents').notNull().default(0),
  total_len: doublePrecision('total_len').notNull().default(0),
  /**
   * Moves on every write to what a cached index holds (triggers): a document's fields or postings, its chunks'
   * vectors. An index is current while it matches; each move is logged in index_changes.
   */
  version: bigint('version', { mode: 'number' }).notNull().default(0),
  /** The last doc_no given to one of the user's documents: each write takes the next ones, in one update. */
  last_no: integer('last_no').notNull().default(0),
  /** Documents numbered up to here had their terms' blocks compacted (db/functions/compact-term-blocks.sql). */
  compacted_upto: integer('compacted_upto').notNull().default(0),
})

/**
 * Which documents changed at which keyword_stats.version (the document and chunk triggers that move the version
 * write it), so a cached index (keyword or vector) catches up with writes by fetching only those documents
 * (index_changes_since; src/retrieval/keyword-cache.ts, vector-cache.ts). `vectors_only`: only the document's
 * chunk vectors changed (the chunk triggers), which the keyword index does not hold. Pruned by the periodic
 * maintenance to the last hour (src/retrieval/change-logs.ts): an index older than the log reloads in full. Deleted
 * with the user (a deletion cascading from the user writes no row: the triggers check the user is still there).
 */
export const indexChanges = pgTable(
  'index_changes',
  {
    user_id: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    version: bigint('version', { mode: 'number' }).notNull(),
    document_id: uuid('document_id').notNull(),
    vectors_only: boolean('vectors_only').notNull().default(false),
    changed_at: timestamp('changed_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('index_changes_user_version_idx').on(t.user_id, t.version)],
)
