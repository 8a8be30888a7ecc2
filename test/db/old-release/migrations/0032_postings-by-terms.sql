-- A document's postings are found through its terms (document_terms, migration 0031), by the postings' primary key,
-- instead of through postings_document_idx (dropped in 0031): that index took an entry for each of the ~100
-- postings a document writes — a fifth of a bulk ingest batch — to serve only deletions, re-indexing and the
-- keyword copy's catch-up. document_terms is written and deleted by the statements that write and delete
-- postings: insert_indexed_documents and keyword-index.ts, and postings_cascade when documents go.
-- Terms are compared COLLATE "C", the postings' collation, so each lookup is a primary-key probe.
INSERT INTO document_terms (document_id, user_id, terms)
SELECT document_id, user_id, array_agg(term) FROM postings GROUP BY document_id, user_id;
--> statement-breakpoint
-- A deletion's postings are found by primary-key probes, in key order (the keys sorted in memory first, hence
-- work_mem); never by hashing the postings table, which the planner, without statistics, picks for a statement
-- deleting many documents, and which costs the whole table however few postings go. The keys are a subquery kept
-- apart (OFFSET 0), so each probe is on all three columns of the key rather than a skip scan of the user's terms.
CREATE OR REPLACE FUNCTION postings_cascade() RETURNS trigger LANGUAGE plpgsql
SET enable_hashjoin = off SET enable_mergejoin = off SET work_mem = '32MB' AS $$
BEGIN
  -- A user with no document left (the account, or everything, deleted): their postings by key prefix, in order.
  WITH emptied AS (
    SELECT u.user_id FROM (SELECT DISTINCT o.user_id FROM old_rows o OFFSET 0) u
     WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.user_id = u.user_id)),
  unlisted AS (DELETE FROM document_terms t USING emptied e WHERE t.user_id = e.user_id)
  DELETE FROM postings p USING emptied e WHERE p.user_id = e.user_id;
  -- Otherwise each posting by its key: the document's terms say which.
  WITH gone AS (DELETE FROM document_terms t WHERE t.document_id IN (SELECT id FROM old_rows) RETURNING t.document_id, t.user_id, t.terms)
  DELETE FROM postings p
   USING (SELECT g.user_id, u.term COLLATE "C" AS term, g.document_id FROM gone g CROSS JOIN unnest(g.terms) AS u(term)
          ORDER BY 1, 2, 3 OFFSET 0) k
   WHERE p.user_id = k.user_id AND p.term = k.term AND p.document_id = k.document_id;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- insert_indexed_documents (0026) also writes each document's terms, and its postings in the primary key's order
-- (term, document): consecutive inserts land on the same or the next leaf of the key's B-tree.
CREATE OR REPLACE FUNCTION insert_indexed_documents(p_docs json, p_parts json, p_config regconfig, p_title_weight integer, p_max_attempts integer, p_now timestamptz)
-- Enough memory that a batch's term counts (~100k rows for 1,000 abstracts) are grouped without spilling to disk;
-- and always the generic plan: the JSON parameters never change the estimates, so a custom plan is only cost.
RETURNS integer LANGUAGE plpgsql SET work_mem = '32MB' SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  written integer;
BEGIN
  WITH d AS (
    SELECT * FROM json_to_recordset(p_docs) AS x(
      id uuid, user_id uuid, workspace_id uuid, title text, excerpt text, body text, tags text[], kind text, status text,
      archived_from text, source text, source_ref text, external_id text, url text, content_hash text, size_bytes integer,
      pinned boolean, rating smallint, metadata jsonb, index_status text, created_at timestamptz, updated_at timestamptz,
      heading text, job_id uuid, event_id uuid)),
  c AS (
    SELECT x.*, to_tsvector(p_config, x.span) AS tsv
    FROM json_to_recordset(p_parts) AS x(id uuid, document_id uuid, ordinal integer, start_offset integer, content text, span text)),
  terms AS (
    SELECT c.document_id, t.lexeme, coalesce(array_length(t.positions, 1), 1) AS tf FROM c, unnest(c.tsv) t
    UNION ALL
    SELECT d.id, t.lexeme, p_title_weight * coalesce(array_length(t.positions, 1), 1) FROM d, unnest(to_tsvector(p_config, d.heading)) t),
  p AS (SELECT document_id, lexeme, sum(tf)::real AS tf FROM terms GROUP BY document_id, lexeme),
  len AS (SELECT document_id, sum(tf)::real AS dl, array_agg(lexeme) AS terms FROM p GROUP BY document_id),
  new_documents AS (
    INSERT INTO documents (id, user_id, workspace_id, title, excerpt, body, tags, kind, status, archived_from, source, source_ref,
      external_id, url, content_hash, size_bytes, pinned, rating, metadata, index_status, keyword_len, created_at, updated_at)
    SELECT d.id, d.user_id, d.workspace_id, d.title, d.excerpt, d.body, d.tags, d.kind, d.status, d.archived_from, d.source, d.source_ref,
      d.external_id, d.url, d.content_hash, d.size_bytes, d.pinned, d.rating, d.metadata, d.index_status, coalesce(len.dl, 0), d.created_at, d.updated_at
    FROM d LEFT JOIN len ON len.document_id = d.id
    RETURNING id),
  new_chunks AS (
    INSERT INTO chunks (id, user_id, document_id, workspace_id, ordinal, start_offset, content, tsv)
    SELECT c.id, d.user_id, c.document_id, d.workspace_id, c.ordinal, c.start_offset, c.content, c.tsv FROM c JOIN d ON d.id = c.document_id),
  new_postings AS (
    INSERT INTO postings (user_id, term, document_id, tf, dl)
    SELECT d.user_id, p.lexeme, p.document_id, p.tf, len.dl FROM p JOIN len USING (document_id) JOIN d ON d.id = p.document_id
    ORDER BY p.lexeme, p.document_id),
  new_terms AS (
    INSERT INTO document_terms (document_id, user_id, terms) SELECT len.document_id, d.user_id, len.terms FROM len JOIN d ON d.id = len.document_id),
  new_jobs AS (
    INSERT INTO jobs (id, user_id, kind, payload, status, max_attempts, run_at, created_at, updated_at)
    SELECT d.job_id, d.user_id, 'embed-document', json_build_object('document_id', d.id)::jsonb, 'queued', p_max_attempts, p_now, p_now, p_now FROM d),
  new_events AS (
    INSERT INTO events (id, user_id, type, created_at) SELECT d.event_id, d.user_id, 'ingest', d.created_at FROM d)
  SELECT count(*) INTO written FROM new_documents;
  RETURN written;
END $$;
--> statement-breakpoint
-- keyword_changes_since (0028) reads a changed document's postings through its terms, each by its full key (the
-- terms kept apart by OFFSET 0, as in postings_cascade).
CREATE OR REPLACE FUNCTION keyword_changes_since(p_user uuid, p_since bigint, p_max integer)
RETURNS TABLE (r_version float8, r_documents integer, r_total_len float8, r_complete boolean, r_changed text, r_current text)
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  RETURN QUERY
  WITH s AS (SELECT k.version, k.documents, k.total_len FROM keyword_stats k WHERE k.user_id = p_user),
  ch AS (SELECT c.version, c.document_id FROM keyword_changes c, s
         WHERE c.user_id = p_user AND c.version > p_since AND c.version <= s.version),
  ids AS (SELECT DISTINCT ch.document_id FROM ch),
  ok AS (SELECT (SELECT count(DISTINCT ch.version) FROM ch) = (SELECT s.version FROM s) - p_since
                AND (SELECT count(*) FROM ids) <= p_max AS complete)
  SELECT s.version::float8, s.documents, s.total_len, ok.complete,
    CASE WHEN ok.complete THEN (SELECT coalesce(json_agg(ids.document_id), '[]')::text FROM ids) END,
    CASE WHEN ok.complete THEN (
      SELECT coalesce(json_agg(x), '[]')::text FROM (
        SELECT d.id, d.status, d.workspace_id, d.kind, d.source, d.tags, d.pinned, d.rating,
               (SELECT json_agg(json_build_array(p.term, p.tf, p.dl))
                  FROM (SELECT u.term COLLATE "C" AS term FROM document_terms t CROSS JOIN unnest(t.terms) AS u(term)
                         WHERE t.document_id = d.id OFFSET 0) k
                  JOIN postings p ON p.user_id = p_user AND p.term = k.term AND p.document_id = d.id) AS postings
        FROM documents d WHERE d.user_id = p_user AND d.id IN (SELECT ids.document_id FROM ids)) x) END
  FROM s, ok;
END $$;
