-- The chunk triggers that move keyword_stats.embedding_version also say which documents moved it, in
-- embedding_changes (one row a document, at the version the statement gave the user), so an in-memory copy of a
-- user's vectors catches up with the embedding worker by reading only those documents
-- (src/retrieval/vector-memory-delta.ts). Only chunks with a vector count: a chunk inserted or deleted without one
-- was never in a copy (copies hold embedded chunks only), so a bulk ingest — chunks written before they are
-- embedded — moves neither the version nor the log. Every move of the version writes at least one row, so a copy
-- tells a complete log from a pruned one by counting versions. A deletion cascading from the user being deleted
-- writes none: its user is gone (the foreign key would refuse the row).
CREATE OR REPLACE FUNCTION chunk_embeddings_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    WITH pairs AS (
      SELECT n.user_id AS new_user, n.document_id AS new_document, o.user_id AS old_user, o.document_id AS old_document
        FROM new_rows n JOIN old_rows o ON o.id = n.id
       WHERE n.embedding IS DISTINCT FROM o.embedding OR n.embedding_model IS DISTINCT FROM o.embedding_model OR n.user_id <> o.user_id),
    changed AS (SELECT new_user AS user_id, new_document AS document_id FROM pairs
                UNION SELECT old_user, old_document FROM pairs),
    moved AS (
      INSERT INTO keyword_stats AS s (user_id, embedding_version)
      SELECT DISTINCT user_id, 1 FROM changed
      ON CONFLICT (user_id) DO UPDATE SET embedding_version = s.embedding_version + 1
      RETURNING s.user_id, s.embedding_version)
    INSERT INTO embedding_changes (user_id, embedding_version, document_id)
    SELECT m.user_id, m.embedding_version, c.document_id FROM moved m JOIN changed c ON c.user_id = m.user_id;
  ELSIF TG_OP = 'INSERT' THEN
    WITH changed AS (SELECT DISTINCT user_id, document_id FROM new_rows WHERE embedding IS NOT NULL),
    moved AS (
      INSERT INTO keyword_stats AS s (user_id, embedding_version)
      SELECT DISTINCT user_id, 1 FROM changed
      ON CONFLICT (user_id) DO UPDATE SET embedding_version = s.embedding_version + 1
      RETURNING s.user_id, s.embedding_version)
    INSERT INTO embedding_changes (user_id, embedding_version, document_id)
    SELECT m.user_id, m.embedding_version, c.document_id FROM moved m JOIN changed c ON c.user_id = m.user_id;
  ELSE
    WITH changed AS (SELECT DISTINCT user_id, document_id FROM old_rows WHERE embedding IS NOT NULL),
    moved AS (
      UPDATE keyword_stats s SET embedding_version = s.embedding_version + 1
       WHERE s.user_id IN (SELECT user_id FROM changed)
      RETURNING s.user_id, s.embedding_version)
    INSERT INTO embedding_changes (user_id, embedding_version, document_id)
    SELECT m.user_id, m.embedding_version, c.document_id FROM moved m JOIN changed c ON c.user_id = m.user_id
     WHERE EXISTS (SELECT 1 FROM users u WHERE u.id = m.user_id);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- What changed in a user's vector copy since it was at (p_version, p_embedding) — keyword_stats' two versions —
-- for model p_model (src/retrieval/vector-memory-delta.ts): the versions now, whether both logs hold every version
-- since and at most p_max documents changed, then the changed document ids, the fields of those that exist, and
-- their chunks' vectors of that model (ids, owners and pgvector's binary form, in chunk id order). One query, so
-- all of it is of one snapshot; a function, so its plan is made once per connection.
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
  -- Each changed document's chunks by chunks_document_idx (the lateral subquery names no other indexed column, and
  -- OFFSET 0 keeps it apart): with no statistics the planner otherwise read every chunk of the user by
  -- chunks_user_idx and kept the few (19 ms at 6,000 chunks, the whole catch-up's cost).
  ch AS (SELECT c.id, c.document_id, c.embedding
           FROM ids CROSS JOIN LATERAL (SELECT c.id, c.document_id, c.user_id, c.embedding_model, c.embedding FROM chunks c
                                         WHERE c.document_id = ids.document_id OFFSET 0) c
          WHERE (SELECT ok.complete FROM ok) AND c.user_id = p_user AND c.embedding_model = p_model AND c.embedding IS NOT NULL)
  SELECT s.version::float8, s.embedding_version::float8, ok.complete,
    CASE WHEN ok.complete THEN (SELECT coalesce(json_agg(ids.document_id), '[]')::text FROM ids) END,
    CASE WHEN ok.complete THEN (
      SELECT coalesce(json_agg(x), '[]')::text FROM (
        SELECT d.id, d.status, d.workspace_id, d.kind, d.source, d.tags, d.pinned, d.rating
          FROM documents d WHERE d.user_id = p_user AND d.id IN (SELECT ids.document_id FROM ids)) x) END,
    (SELECT string_agg(ch.id::text, ' ' ORDER BY ch.id) FROM ch),
    (SELECT string_agg(ch.document_id::text, ' ' ORDER BY ch.id) FROM ch),
    (SELECT string_agg(vector_send(ch.embedding), ''::bytea ORDER BY ch.id) FROM ch)
  FROM s, ok;
END $$;
