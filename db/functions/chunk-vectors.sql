-- keyword_stats.version moved, and index_changes written, by triggers on every write to chunk vectors: with the
-- document triggers (keyword-stats.sql) one version and one log for what a user's cached indexes hold.
--
-- The version moves when chunks with a vector are inserted or deleted (a re-index, a delete), or a vector or its
-- model is set or cleared; each move says which documents moved it in index_changes (one row a document, at the
-- version the statement gave the user), marked vectors_only: the keyword index, which holds no vectors, reads past
-- them (index_changes_since). A chunk inserted or deleted without a vector was never in a cached index (they hold
-- embedded chunks only), so a bulk ingest — chunks written before they are embedded — moves neither the version nor
-- the log. Every move writes at least one row, so an index tells a complete log from a pruned one by counting
-- versions. A deletion cascading from the user being deleted writes none: its user is gone (the foreign key would
-- refuse the row). Statement-level triggers: one move per statement however many chunks it writes, so the embedding
-- worker's batched writes pay one row update, not one per chunk.
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
      INSERT INTO keyword_stats AS s (user_id, version)
      SELECT DISTINCT user_id, 1 FROM changed
      ON CONFLICT (user_id) DO UPDATE SET version = s.version + 1
      RETURNING s.user_id, s.version)
    INSERT INTO index_changes (user_id, version, document_id, vectors_only)
    SELECT m.user_id, m.version, c.document_id, true FROM moved m JOIN changed c ON c.user_id = m.user_id;
  ELSIF TG_OP = 'INSERT' THEN
    WITH changed AS (SELECT DISTINCT user_id, document_id FROM new_rows WHERE embedding IS NOT NULL),
    moved AS (
      INSERT INTO keyword_stats AS s (user_id, version)
      SELECT DISTINCT user_id, 1 FROM changed
      ON CONFLICT (user_id) DO UPDATE SET version = s.version + 1
      RETURNING s.user_id, s.version)
    INSERT INTO index_changes (user_id, version, document_id, vectors_only)
    SELECT m.user_id, m.version, c.document_id, true FROM moved m JOIN changed c ON c.user_id = m.user_id;
  ELSE
    WITH changed AS (SELECT DISTINCT user_id, document_id FROM old_rows WHERE embedding IS NOT NULL),
    moved AS (
      UPDATE keyword_stats s SET version = s.version + 1
       WHERE s.user_id IN (SELECT user_id FROM changed)
      RETURNING s.user_id, s.version)
    INSERT INTO index_changes (user_id, version, document_id, vectors_only)
    SELECT m.user_id, m.version, c.document_id, true FROM moved m JOIN changed c ON c.user_id = m.user_id
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
