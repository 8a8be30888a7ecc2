-- keyword_stats.version moves on every write to a user's documents — content, status, tags, pins, ratings,
-- deletes — so a process holding an in-memory copy of the user's keyword index (src/retrieval/keyword-memory.ts)
-- knows with one read whether its copy is still exact. The trigger now fires on any update, not only of
-- keyword_len.
CREATE OR REPLACE FUNCTION keyword_stats_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    UPDATE keyword_stats
       SET documents = documents - (OLD.keyword_len > 0)::int, total_len = total_len - OLD.keyword_len, version = version + 1
     WHERE user_id = OLD.user_id;
    RETURN OLD;
  END IF;
  INSERT INTO keyword_stats AS s (user_id, documents, total_len, version)
  VALUES (NEW.user_id,
          (NEW.keyword_len > 0)::int - (CASE WHEN TG_OP = 'UPDATE' THEN (OLD.keyword_len > 0)::int ELSE 0 END),
          NEW.keyword_len - (CASE WHEN TG_OP = 'UPDATE' THEN OLD.keyword_len ELSE 0 END),
          1)
  ON CONFLICT (user_id) DO UPDATE
     SET documents = s.documents + EXCLUDED.documents, total_len = s.total_len + EXCLUDED.total_len, version = s.version + 1;
  RETURN NEW;
END $$;
--> statement-breakpoint
DROP TRIGGER documents_keyword_stats ON documents;
--> statement-breakpoint
CREATE TRIGGER documents_keyword_stats
AFTER INSERT OR DELETE OR UPDATE ON documents
FOR EACH ROW EXECUTE FUNCTION keyword_stats_track();
