// Workspaces and what they hold: documents (memories are documents of a memory kind, the messages of a thread are
// documents of kind message), threads, chunks, links between documents, and tombstones of forgotten documents.
import { sql } from 'drizzle-orm'
import { boolean, check, index, integer, jsonb, pgTable, real, smallint, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { bytea, id, timestamps, ts, tsvector, vector } from './columns'
import type { Actor } from './actor'
import { users } from './users'

export const workspaces = pgTable(
  'workspaces',
  {
    id: id(),
    user_id: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    ...timestamps,
  },
  (t) => [index('workspaces_user_idx').on(t.user_id)],
)

/**
 * A conversation sent from outside (an agent's, a chat export's): its messages are documents that name it with a
 * position, so search, lists, lifecycle, workspaces, MCP and bulk ingest work for messages as for any document.
 * `conversation_id` names the ask or agent conversation a thread remembers, when the person's setting says so.
 */
export const threads = pgTable(
  'threads',
  {
    id: id(),
    user_id: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    workspace_id: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    /** The client's id of the conversation: sending it again names the same thread. */
    external_id: text('external_id'),
    conversation_id: uuid('conversation_id'),
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull().default({}),
    /** The position of the last message learnings were proposed from (-1: none yet). */
    extracted_through: integer('extracted_through').notNull().default(-1),
    /** The last extraction's outcome: null before any, else { status: 'done' | 'failed', at, proposed?, error? }. */
    extraction: jsonb('extraction').$type<Record<string, unknown> | null>(),
    ...timestamps,
  },
  (t) => [
    index('threads_user_idx').on(t.user_id, t.updated_at),
    uniqueIndex('threads_external_key').on(t.user_id, t.external_id).where(sql`external_id is not null`),
    uniqueIndex('threads_conversation_key').on(t.conversation_id).where(sql`conversation_id is not null`),
  ],
)

/** Deleting a workspace cascades to its documents, and through them to chunks and links. */
export const documents = pgTable(
  'documents',
  {
    id: id(),
    user_id: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    workspace_id: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    excerpt: text('excerpt').notNull(),
    body: text('body').notNull(),
    tags: text('tags').array().notNull().default(sql`'{}'::text[]`),
    kind: text('kind').notNull(),
    /** active | pending_approval | archived — only active rows are retrievable. */
    status: text('status').notNull(),
    /** The status an archived document had when it was archived: restore returns it there, so a rejected
     * draft comes back as a draft, never as an active memory. Null on rows that are not archived. */
    archived_from: text('archived_from'),
    source: text('source').notNull(),
    source_ref: text('source_ref'),
    /** Provider-side id of a connector document (upserts and tombstones match on it). */
    external_id: text('external_id'),
    url: text('url'),
    /** SHA-256 of the body: duplicate content in a workspace updates instead of duplicating. */
    content_hash: text('content_hash').notNull(),
    /** UTF-8 bytes of title + excerpt + body, summed for the storage limit. */
    size_bytes: integer('size_bytes').notNull(),
    pinned: boolean('pinned').notNull().default(false),
    rating: smallint('rating').notNull().default(0),
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull().default({}),
    /** pending | indexed | failed */
    index_status: text('index_status').notNull().default('pending'),
    /** BM25 document length: the sum of the document's posting frequencies (0 until keyword-indexed). */
    keyword_len: real('keyword_len').notNull().default(0),
    /**
     * The document's number in its owner's keyword index (term_blocks hold these, not ids: 4 bytes a posting, in
     * the order documents were indexed), given anew each time it is indexed; null until it is (keyword_stats.last_no).
     */
    doc_no: integer('doc_no'),
    /** When what the document records happened (a message: when it was said); the time of ingest unless given. */
    occurred_at: ts('occurred_at').notNull().default(sql`now()`),
    /** A message's thread (deleting the thread deletes its messages), its place in it, and who said it. */
    thread_id: uuid('thread_id').references(() => threads.id, { onDelete: 'cascade' }),
    position: integer('position'),
    speaker: text('speaker'),
    /** Where each part of the body came from in the document's original file — [{ start, page?, slide?, sheet?,
     * heading? }] by body offset, ascending — so a chunk knows its page. Null when the body is not a file's text. */
    sections: jsonb('sections').$type<FileSection[]>(),
    /** The number of the current version (document_versions holds the earlier ones) and who made it. */
    version: integer('version').notNull().default(1),
    updated_by: jsonb('updated_by').$type<Actor>(),
    ...timestamps,
  },
  (t) => [
    index('documents_user_status_idx').on(t.user_id, t.status, t.id),
    // The documents semantic search cannot see yet (search's notice counts them on every query): few, so a partial index
    // answers the count without reading the user's other documents (~100k rows at 100k documents).
    index('documents_unembedded_idx').on(t.user_id).where(sql`index_status <> 'indexed'`),
    index('documents_workspace_idx').on(t.workspace_id, t.status),
    index('documents_hash_idx').on(t.workspace_id, t.content_hash),
    index('documents_url_idx').on(t.workspace_id, t.url),
    // One document per connector item, even if two syncs of a connector ever overlapped.
    uniqueIndex('documents_external_key').on(t.source_ref, t.external_id).where(sql`external_id is not null`),
    // One message per place in a thread; a message's client id (external_id) names one message of its thread.
    uniqueIndex('documents_thread_position_key').on(t.thread_id, t.position).where(sql`thread_id is not null`),
    uniqueIndex('documents_thread_client_key').on(t.thread_id, t.external_id).where(sql`thread_id is not null and external_id is not null`),
    index('documents_user_occurred_idx').on(t.user_id, t.occurred_at),
    uniqueIndex('documents_user_doc_no_key').on(t.user_id, t.doc_no),
  ],
)

/** Overlapping pieces of a document, each with its own keyword vector and (once embedded) its embedding. */
export const chunks = pgTable(
  'chunks',
  {
    id: id(),
    user_id: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    document_id: uuid('document_id')
      .notNull()
      .references(() => documents.id, { onDelete: 'cascade' }),
    workspace_id: uuid('workspace_id').notNull(),
    ordinal: integer('ordinal').notNull(),
    start_offset: integer('start_offset').notNull(),
    /** The chunk's text where it is not in its document's body: chunks written before content_from and content_chars. */
    content: text('content'),
    /** Where the chunk's text is in documents.body, in code points (chunking.ts's contentSpans; read by chunk-text.ts). */
    content_from: integer('content_from'),
    content_chars: integer('content_chars'),
    tsv: tsvector('tsv'),
    embedding: vector('embedding'),
    /** The model that made `embedding`; queries only compare vectors of one model. */
    embedding_model: text('embedding_model'),
    /** Where the chunk starts in the document's original file ({ page } / { slide } / { sheet }, heading): null for text. */
    location: jsonb('location').$type<FileLocation>(),
    created_at: timestamps.created_at,
  },
  (t) => [
    index('chunks_document_idx').on(t.document_id, t.ordinal),
    index('chunks_user_idx').on(t.user_id, t.embedding_model),
    // Its text somewhere: its own copy (written before) or a span of its document's body.
    check('chunks_text_check', sql`${t.content} is not null or (${t.content_from} is not null and ${t.content_chars} is not null)`),
    // No GIN index on tsv: chunks are found through postings and read by document id; the index was only paid for at ingest.
  ],
)

/** Where a part of a file's text starts in its body, and where it came from in the file. */
export interface FileSection extends FileLocation {
  start: number
}

export interface FileLocation {
  page?: number
  slide?: number
  sheet?: string
  heading?: string
}

/**
 * The file a document was uploaded as, kept as sent (its bytes count towards the storage limit, migration 0042)
 * and read by the extract-file job into the document's body. Deleting the document deletes it.
 */
export const documentFiles = pgTable(
  'document_files',
  {
    document_id: uuid('document_id')
      .primaryKey()
      .references(() => documents.id, { onDelete: 'cascade' }),
    user_id: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The file's name as sent (a new version of the same name in a workspace replaces this one). */
    name: text('name').notNull(),
    format: text('format').notNull(),
    content_type: text('content_type').notNull(),
    size_bytes: integer('size_bytes').notNull(),
    sha256: text('sha256').notNull(),
    bytes: bytea('bytes').notNull(),
    /** processing | done | failed */
    status: text('status').notNull(),
    /** Why the file could not be read, as the person sees it. */
    error: text('error'),
    /** Pages, slides or sheets read. */
    pages: integer('pages'),
    ...timestamps,
  },
  (t) => [index('document_files_user_name_idx').on(t.user_id, t.name)],
)

/**
 * A link between two documents of one user, stored once per pair whichever way it was made.
 * `dismissed` keeps a removed suggestion from being suggested again; it is never shown.
 */
export const links = pgTable(
  'links',
  {
    id: id(),
    user_id: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    source_id: uuid('source_id')
      .notNull()
      .references(() => documents.id, { onDelete: 'cascade' }),
    target_id: uuid('target_id')
      .notNull()
      .references(() => documents.id, { onDelete: 'cascade' }),
    score: real('score').notNull(),
    /** pending | completed | dismissed */
    status: text('status').notNull(),
    /** suggested | manual */
    origin: text('origin').notNull(),
    created_at: timestamps.created_at,
  },
  (t) => [
    uniqueIndex('links_pair_key').on(sql`least(${t.source_id}, ${t.target_id})`, sql`greatest(${t.source_id}, ${t.target_id})`),
    index('links_source_idx').on(t.source_id),
    index('links_target_idx').on(t.target_id),
  ],
)

/**
 * What is left of a forgotten document: no title, body, URL or excerpt — only hashes and the provider
 * id, so a connector re-sync recognises it and does not bring it back.
 */
export const tombstones = pgTable(
  'tombstones',
  {
    id: uuid('id').primaryKey(),
    user_id: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    workspace_id: uuid('workspace_id'),
    source: text('source').notNull(),
    source_ref: text('source_ref'),
    external_id: text('external_id'),
    content_hash: text('content_hash').notNull(),
    forgotten_at: ts('forgotten_at').notNull().default(sql`now()`),
  },
  (t) => [index('tombstones_external_idx').on(t.user_id, t.source_ref, t.external_id)],
)
