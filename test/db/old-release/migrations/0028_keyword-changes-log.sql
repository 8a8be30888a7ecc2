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
--> statement-breakpoint
-- What changed in a user's keyword index since version p_since (src/retrieval/keyword-memory-delta.ts): the
-- statistics now, whether the log holds every version since (each move of the version wrote a row) and at most
-- p_max documents changed, and then the changed ids and those that exist with their fields and postings as JSON.
-- One query, so all of it is of one snapshot; a function, so its plan is made once per connection (planning the
-- query took longer than running it on the embedded database).
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
               (SELECT json_agg(json_build_array(p.term, p.tf, p.dl)) FROM postings p
                 WHERE p.user_id = p_user AND p.document_id = d.id) AS postings
        FROM documents d WHERE d.user_id = p_user AND d.id IN (SELECT ids.document_id FROM ids)) x) END
  FROM s, ok;
END $$;
