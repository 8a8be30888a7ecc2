-- The in-memory copies filter by when a document happened (occurred_at, 0036), so a change of it moves
-- keyword_stats.version like a change of any other field a search filters by, and the catch-ups bring it: each
-- changed document's occurred_at in epoch milliseconds, rounded down, exactly as src/retrieval/document-fields.ts
-- reads it in a full load (OCCURRED_MS).
DROP TRIGGER documents_keyword_stats ON documents;
--> statement-breakpoint
CREATE TRIGGER documents_keyword_stats
AFTER UPDATE OF keyword_len, status, workspace_id, kind, source, tags, pinned, rating, occurred_at, user_id ON documents
FOR EACH ROW EXECUTE FUNCTION keyword_stats_track();
--> statement-breakpoint
-- keyword_changes_since (0032) with occurred_at among a changed document's fields.
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
               floor(extract(epoch from d.occurred_at) * 1000)::float8 AS occurred_at,
               (SELECT json_agg(json_build_array(p.term, p.tf, p.dl))
                  FROM (SELECT u.term COLLATE "C" AS term FROM document_terms t CROSS JOIN unnest(t.terms) AS u(term)
                         WHERE t.document_id = d.id OFFSET 0) k
                  JOIN postings p ON p.user_id = p_user AND p.term = k.term AND p.document_id = d.id) AS postings
        FROM documents d WHERE d.user_id = p_user AND d.id IN (SELECT ids.document_id FROM ids)) x) END
  FROM s, ok;
END $$;
--> statement-breakpoint
-- vector_changes_since (0030) with occurred_at among a changed document's fields.
CREATE OR REPLACE FUNCTION vector_changes_since(p_user uuid, p_version bigint, p_embedding bigint, p_model text, p_max integer)
RETURNS TABLE (r_version float8, r_embedding_version float8, r_complete boolean, r_changed text, r_documents text,
               r_chunk_ids text, r_chunk_documents text, r_vectors bytea)
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  RETURN QUERY
  WITH s AS (SELECT k.version, k.embedding_version FROM keyword_stats k WHERE k.user_id = p_user),
  kc AS (SELECT c.version, c.document_id FROM keyword_changes c, s
         WHERE c.user_id = p_user AND c.version > p_version AND c.version <= s.version),
  ec AS (SELECT c.embedding_version, c.document_id FROM embedding_changes c, s
         WHERE c.user_id = p_user AND c.embedding_version > p_embedding AND c.embedding_version <= s.embedding_version),
  ids AS (SELECT kc.document_id FROM kc UNION SELECT ec.document_id FROM ec),
  ok AS (SELECT (SELECT count(DISTINCT kc.version) FROM kc) = (SELECT s.version FROM s) - p_version
            AND (SELECT count(DISTINCT ec.embedding_version) FROM ec) = (SELECT s.embedding_version FROM s) - p_embedding
            AND (SELECT count(*) FROM ids) <= p_max AS complete),
  ch AS (SELECT c.id, c.document_id, c.embedding
           FROM ids CROSS JOIN LATERAL (SELECT c.id, c.document_id, c.user_id, c.embedding_model, c.embedding FROM chunks c
                                         WHERE c.document_id = ids.document_id OFFSET 0) c
          WHERE (SELECT ok.complete FROM ok) AND c.user_id = p_user AND c.embedding_model = p_model AND c.embedding IS NOT NULL)
  SELECT s.version::float8, s.embedding_version::float8, ok.complete,
    CASE WHEN ok.complete THEN (SELECT coalesce(json_agg(ids.document_id), '[]')::text FROM ids) END,
    CASE WHEN ok.complete THEN (
      SELECT coalesce(json_agg(x), '[]')::text FROM (
        SELECT d.id, d.status, d.workspace_id, d.kind, d.source, d.tags, d.pinned, d.rating,
               floor(extract(epoch from d.occurred_at) * 1000)::float8 AS occurred_at
          FROM documents d WHERE d.user_id = p_user AND d.id IN (SELECT ids.document_id FROM ids)) x) END,
    (SELECT string_agg(ch.id::text, ' ' ORDER BY ch.id) FROM ch),
    (SELECT string_agg(ch.document_id::text, ' ' ORDER BY ch.id) FROM ch),
    (SELECT string_agg(vector_send(ch.embedding), ''::bytea ORDER BY ch.id) FROM ch)
  FROM s, ok;
END $$;
