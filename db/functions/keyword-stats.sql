-- keyword_stats (each user's BM25 corpus size, total length and version) and the change log index_changes, kept
-- exact by triggers on every write to documents, deletes by cascade included.
--
-- keyword_stats.version moves on every write that changes what a user's cached indexes read — here a document
-- inserted or deleted, its terms (keyword_len, which every re-index sets), its owner, and the fields a search filters
-- and boosts by (src/retrieval/document-fields.ts, DOCUMENT_FIELD_COLUMNS; test/db/functions.test.ts checks the
-- trigger's column list against it); in chunk-vectors.sql, its chunks' vectors — so a process holding an index
-- knows with one read whether it is exact. An embedding job marking a document indexed does not move it. Each move
-- also writes which documents moved it to index_changes (one row a document, at the version the statement gave the
-- user), so an index catches up by reading only those (index_changes_since); every move writes at least one row, so
-- an index tells a complete log from a pruned one by counting versions. A deletion cascading from the user being
-- deleted writes none: its user is gone (the foreign key would refuse the row). Deletes only update keyword_stats:
-- inserting while a user is being deleted would break the foreign key.

-- Updates, one row at a time (they change one document at a time). The INSERT and DELETE branches serve no trigger
-- now (the statement-level function below does), and are kept as they were.
CREATE OR REPLACE FUNCTION keyword_stats_track() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  moved bigint;
BEGIN
  IF TG_OP = 'DELETE' THEN
    UPDATE keyword_stats
       SET documents = documents - (OLD.keyword_len > 0)::int, total_len = total_len - OLD.keyword_len, version = version + 1
     WHERE user_id = OLD.user_id
    RETURNING version INTO moved;
    IF moved IS NOT NULL AND EXISTS (SELECT 1 FROM users WHERE id = OLD.user_id) THEN
      INSERT INTO index_changes (user_id, version, document_id) VALUES (OLD.user_id, moved, OLD.id);
    END IF;
    RETURN OLD;
  END IF;
  INSERT INTO keyword_stats AS s (user_id, documents, total_len, version)
  VALUES (NEW.user_id,
          (NEW.keyword_len > 0)::int - (CASE WHEN TG_OP = 'UPDATE' THEN (OLD.keyword_len > 0)::int ELSE 0 END),
          NEW.keyword_len - (CASE WHEN TG_OP = 'UPDATE' THEN OLD.keyword_len ELSE 0 END),
          1)
  ON CONFLICT (user_id) DO UPDATE
     SET documents = s.documents + EXCLUDED.documents, total_len = s.total_len + EXCLUDED.total_len, version = s.version + 1
  RETURNING s.version INTO moved;
  INSERT INTO index_changes (user_id, version, document_id) VALUES (NEW.user_id, moved, NEW.id);
  RETURN NEW;
END $$;

-- Inserts and deletes, once per statement, not once per row: a bulk ingest of 1,000 documents updated each user's
-- row 1,000 times in one transaction, and every update walked the chain of versions the earlier ones left
-- (quadratic: half a second a batch).
CREATE OR REPLACE FUNCTION keyword_stats_track_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    WITH moved AS (
      INSERT INTO keyword_stats AS s (user_id, documents, total_len, version)
      SELECT user_id, count(*) FILTER (WHERE keyword_len > 0), sum(keyword_len::float8), 1 FROM new_rows GROUP BY user_id
      ON CONFLICT (user_id) DO UPDATE
         SET documents = s.documents + EXCLUDED.documents, total_len = s.total_len + EXCLUDED.total_len, version = s.version + 1
      RETURNING s.user_id, s.version)
    INSERT INTO index_changes (user_id, version, document_id)
    SELECT m.user_id, m.version, n.id FROM moved m JOIN new_rows n ON n.user_id = m.user_id;
  ELSE
    WITH moved AS (
      UPDATE keyword_stats s SET documents = s.documents - o.documents, total_len = s.total_len - o.total_len, version = s.version + 1
        FROM (SELECT user_id, count(*) FILTER (WHERE keyword_len > 0) AS documents, sum(keyword_len::float8) AS total_len FROM old_rows GROUP BY user_id) o
       WHERE s.user_id = o.user_id
      RETURNING s.user_id, s.version)
    INSERT INTO index_changes (user_id, version, document_id)
    SELECT m.user_id, m.version, o.id FROM moved m JOIN old_rows o ON o.user_id = m.user_id
     WHERE EXISTS (SELECT 1 FROM users u WHERE u.id = m.user_id);
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER documents_keyword_stats
AFTER UPDATE OF keyword_len, status, workspace_id, kind, source, tags, pinned, rating, occurred_at, user_id ON documents
FOR EACH ROW EXECUTE FUNCTION keyword_stats_track();

CREATE OR REPLACE TRIGGER documents_keyword_stats_insert AFTER INSERT ON documents REFERENCING NEW TABLE AS new_rows
FOR EACH STATEMENT EXECUTE FUNCTION keyword_stats_track_rows();

CREATE OR REPLACE TRIGGER documents_keyword_stats_delete AFTER DELETE ON documents REFERENCING OLD TABLE AS old_rows
FOR EACH STATEMENT EXECUTE FUNCTION keyword_stats_track_rows();
