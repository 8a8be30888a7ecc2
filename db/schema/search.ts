// The keyword index: one posting per (user, term, document) with the term's weighted frequency.
// Document frequencies, corpus size and average length are read from it at query time, so BM25 statistics
// are exact after every write with no counters to keep in step (see src/retrieval/keyword.ts).
import {
  bigint,
  boolean,
  customType,
  doublePrecision,
  index,
  integer,
  pgTable,
  primaryKey,
  real,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core'
import { users } from './users'

/** Byte-order collation, so `term LIKE 'pre%'` can use the primary-key btree for prefix matching. */
const termText = customType<{ data: string }>({ dataType: () => 'text collate "C"' })

/**
 * No foreign keys: a bulk ingest writes ~100 postings a document, and checking two keys on each was 40 % of its
 * time. They are written only with their document (in the same statement or transaction), and a statement-level
 * trigger on documents deletes a deleted document's postings (migration postings-cascade), also when a
 * workspace or account deletion cascades to its documents. No index by document either (a fifth of a bulk
 * ingest's time): a document's postings are found by primary key through its terms (documentTerms).
 */
export const postings = pgTable(
  'postings',
  {
    user_id: uuid('user_id').notNull(),
    term: termText('term').notNull(),
    document_id: uuid('document_id').notNull(),
    /** Occurrences in the body plus TITLE_WEIGHT × occurrences in title and tags. */
    tf: real('tf').notNull(),
    /** The document's BM25 length (documents.keyword_len), copied so ranking never reads the documents table. */
    dl: real('dl').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.user_id, t.term, t.document_id] })],
)

/**
 * Each document's terms — the keys of its postings, one row a document instead of an index entry a posting —
 * so a deletion, a re-index and the keyword copy's catch-up find a document's postings by primary key. Written
 * and deleted with the postings, by the same statements (migration document-terms); no foreign keys, as postings.
 */
export const documentTerms = pgTable('document_terms', {
  document_id: uuid('document_id').primaryKey(),
  user_id: uuid('user_id').notNull(),
  /** Compared to postings.term COLLATE "C" (the postings' collation), so the primary key serves each lookup. */
  terms: text('terms').array().notNull(),
  /**
   * Each term's tf, in the order of `terms` (postings.tf): a cached index catching up reads a changed document's
   * postings from this one row (index_changes_since) instead of one probe of the postings' key a term.
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
