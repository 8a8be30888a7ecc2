-- What changed in a user's cached indexes since a version (index_changes_since): the one function the keyword and
-- vector indexes catch up through (src/retrieval/keyword-cache.ts, vector-cache.ts), reading the one log the
-- document and chunk triggers write (keyword-stats.sql, chunk-vectors.sql).
--
-- One query, so all it reads is of one snapshot; a function, so its plan is made once per connection (planning the
-- query took longer than running it on the embedded database). A changed document's fields are those a full load
-- reads (src/retrieval/document-fields.ts), occurred_at as OCCURRED_MS computes it.

-- Since version p_since: the statistics and version now, whether the log holds every version since (each move of
-- the version wrote a row) and at most p_max documents changed, then the changed ids and the fields of those that
-- exist as JSON; and, as asked:
-- - p_model null (the keyword index): each document's postings, in its JSON as its terms, their tfs and its length
--   (null when a model is given). Changes of vectors alone (vectors_only) are left out: the version moves past
--   them, no document is read again.
-- - p_model given (the vector index of that model): the changed documents' chunks with a vector of it — ids, owners
--   and pgvector's binary form, in chunk id order.
-- A document's postings are its row of document_terms (terms and their tfs; its length is documents.keyword_len, as
-- postings.dl), sent as the two arrays: one row, where reading postings by their keys took a probe a term (~95 an
-- abstract; 27 % of a bulk ingest's time went to the catch-ups following it), and no JSON built a posting.
CREATE OR REPLACE FUNCTION index_changes_since(p_user uuid, p_since bigint, p_model text, p_max integer)
RETURNS TABLE (r_version float8, r_documents integer, r_total_len float8, r_complete boolean, r_changed text, r_current text,
               r_chunk_ids text, r_chunk_documents text, r_vectors bytea)
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  RETURN QUERY
  WITH s AS (SELECT k.version, k.documents, k.total_len FROM keyword_stats k WHERE k.user_id = p_user),
  log AS (SELECT c.version, c.document_id, c.vectors_only FROM index_changes c, s
          WHERE c.user_id = p_user AND c.version > p_since AND c.version <= s.version),
  ids AS (SELECT DISTINCT log.document_id FROM log WHERE p_model IS NOT NULL OR NOT log.vectors_only),
  ok AS (SELECT (SELECT count(DISTINCT log.version) FROM log) = (SELECT s.version FROM s) - p_since
                AND (SELECT count(*) FROM ids) <= p_max AS complete),
  -- Each changed document's chunks by chunks_document_idx (the lateral subquery names no other indexed column, and
  -- OFFSET 0 keeps it apart): with no statistics the planner otherwise read every chunk of the user by
  -- chunks_user_idx and kept the few (19 ms at 6,000 chunks, the whole catch-up's cost).
  ch AS (SELECT c.id, c.document_id, c.embedding
           FROM ids CROSS JOIN LATERAL (SELECT c.id, c.document_id, c.user_id, c.embedding_model, c.embedding FROM chunks c
                                         WHERE c.document_id = ids.document_id OFFSET 0) c
          WHERE p_model IS NOT NULL AND (SELECT ok.complete FROM ok)
            AND c.user_id = p_user AND c.embedding_model = p_model AND c.embedding IS NOT NULL)
  SELECT s.version::float8, s.documents, s.total_len, ok.complete,
    CASE WHEN ok.complete THEN (SELECT coalesce(json_agg(ids.document_id), '[]')::text FROM ids) END,
    CASE WHEN ok.complete THEN (
      SELECT coalesce(json_agg(x), '[]')::text FROM (
        SELECT d.id, d.status, d.workspace_id, d.kind, d.source, d.tags, d.pinned, d.rating,
               floor(extract(epoch from d.occurred_at) * 1000)::float8 AS occurred_at,
               t.terms, t.tfs, d.keyword_len AS dl
        FROM documents d LEFT JOIN document_terms t ON p_model IS NULL AND t.document_id = d.id
        WHERE d.user_id = p_user AND d.id IN (SELECT ids.document_id FROM ids)) x) END,
    (SELECT string_agg(ch.id::text, ' ' ORDER BY ch.id) FROM ch),
    (SELECT string_agg(ch.document_id::text, ' ' ORDER BY ch.id) FROM ch),
    (SELECT string_agg(vector_send(ch.embedding), ''::bytea ORDER BY ch.id) FROM ch)
  FROM s, ok;
END $$;
