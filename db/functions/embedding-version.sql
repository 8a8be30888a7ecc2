-- keyword_stats.embedding_version and its change log embedding_changes, moved by triggers on every write to chunk
-- vectors, so a process holding a copy of a user's vectors knows with one read whether it is exact.
--
-- The version moves when chunks with a vector are inserted or deleted (a re-index, a delete), or a vector or its
-- model is set or cleared; each move says which documents moved it in embedding_changes (one row a document, at the
-- version the statement gave the user), so a copy catches up with the embedding worker by reading only those
-- (vector_changes_since, in changes-since.sql). A chunk inserted or deleted without a vector was never in a copy
-- (copies hold embedded chunks only), so a bulk ingest — chunks written before they are embedded — moves neither the
-- version nor the log. Every move writes at least one row, so a copy tells a complete log from a pruned one by
-- counting versions. A deletion cascading from the user being deleted writes none: its user is gone (the foreign
-- key would refuse the row). Statement-level triggers: one move per statement however many chunks it writes, so
-- the embedding worker's batched writes pay one row update, not one per chunk.
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

CREATE OR REPLACE TRIGGER chunks_embedding_insert AFTER INSERT ON chunks REFERENCING NEW TABLE AS new_rows
FOR EACH STATEMENT EXECUTE FUNCTION chunk_embeddings_track();

CREATE OR REPLACE TRIGGER chunks_embedding_update AFTER UPDATE ON chunks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
FOR EACH STATEMENT EXECUTE FUNCTION chunk_embeddings_track();

CREATE OR REPLACE TRIGGER chunks_embedding_delete AFTER DELETE ON chunks REFERENCING OLD TABLE AS old_rows
FOR EACH STATEMENT EXECUTE FUNCTION chunk_embeddings_track();
