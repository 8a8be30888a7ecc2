-- The triggers that move keyword_stats.version also say which documents moved it, in keyword_changes (one row a
-- document, at the version the statement gave the user), so an in-memory copy of a user's keyword index catches
-- up by reading only those documents (src/retrieval/keyword-memory-delta.ts). Every move of a version writes at
-- least one row, so a copy can tell a complete log from a pruned one by counting versions. A deletion that
-- cascades from the user being deleted writes none: its user is gone (the foreign key would refuse the row).
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
      INSERT INTO keyword_changes (user_id, version, document_id) VALUES (OLD.user_id, moved, OLD.id);
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
  INSERT INTO keyword_changes (user_id, version, document_id) VALUES (NEW.user_id, moved, NEW.id);
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION keyword_stats_track_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    WITH moved AS (
      INSERT INTO keyword_stats AS s (user_id, documents, total_len, version)
      SELECT user_id, count(*) FILTER (WHERE keyword_len > 0), sum(keyword_len::float8), 1 FROM new_rows GROUP BY user_id
      ON CONFLICT (user_id) DO UPDATE
         SET documents = s.documents + EXCLUDED.documents, total_len = s.total_len + EXCLUDED.total_len, version = s.version + 1
      RETURNING s.user_id, s.version)
    INSERT INTO keyword_changes (user_id, version, document_id)
    SELECT m.user_id, m.version, n.id FROM moved m JOIN new_rows n ON n.user_id = m.user_id;
  ELSE
    WITH moved AS (
      UPDATE keyword_stats s SET documents = s.documents - o.documents, total_len = s.total_len - o.total_len, version = s.version + 1
        FROM (SELECT user_id, count(*) FILTER (WHERE keyword_len > 0) AS documents, sum(keyword_len::float8) AS total_len FROM old_rows GROUP BY user_id) o
       WHERE s.user_id = o.user_id
      RETURNING s.user_id, s.version)
    INSERT INTO keyword_changes (user_id, version, document_id)
    SELECT m.user_id, m.version, o.id FROM moved m JOIN old_rows o ON o.user_id = m.user_id
     WHERE EXISTS (SELECT 1 FROM users u WHERE u.id = m.user_id);
  END IF;
  RETURN NULL;
END $$;
