-- keyword_stats.embedding_version moves on every write to a user's chunk embeddings — chunks inserted or deleted
-- (a re-index, a delete), an embedding or its model set or cleared — so a process holding an in-memory copy of
-- the user's vectors (src/retrieval/vector-memory.ts) knows with one read, together with `version` (which
-- moves with every filter a search applies: status, workspace, kind, source, tags, pin, rating), whether its
-- copy is exact. Statement-level triggers: one bump per statement however many chunks it writes, so the
-- embedding worker's batched writes pay one row update, not one per chunk.
CREATE OR REPLACE FUNCTION chunk_embeddings_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    INSERT INTO keyword_stats AS s (user_id, embedding_version)
    SELECT DISTINCT n.user_id, 1 FROM new_rows n JOIN old_rows o ON o.id = n.id
     WHERE n.embedding IS DISTINCT FROM o.embedding OR n.embedding_model IS DISTINCT FROM o.embedding_model OR n.user_id <> o.user_id
    ON CONFLICT (user_id) DO UPDATE SET embedding_version = s.embedding_version + 1;
  ELSIF TG_OP = 'INSERT' THEN
    INSERT INTO keyword_stats AS s (user_id, embedding_version)
    SELECT DISTINCT user_id, 1 FROM new_rows
    ON CONFLICT (user_id) DO UPDATE SET embedding_version = s.embedding_version + 1;
  ELSE
    UPDATE keyword_stats s SET embedding_version = s.embedding_version + 1
     WHERE s.user_id IN (SELECT DISTINCT user_id FROM old_rows);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER chunks_embedding_insert AFTER INSERT ON chunks REFERENCING NEW TABLE AS new_rows
FOR EACH STATEMENT EXECUTE FUNCTION chunk_embeddings_track();
--> statement-breakpoint
CREATE TRIGGER chunks_embedding_update AFTER UPDATE ON chunks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
FOR EACH STATEMENT EXECUTE FUNCTION chunk_embeddings_track();
--> statement-breakpoint
CREATE TRIGGER chunks_embedding_delete AFTER DELETE ON chunks REFERENCING OLD TABLE AS old_rows
FOR EACH STATEMENT EXECUTE FUNCTION chunk_embeddings_track();
