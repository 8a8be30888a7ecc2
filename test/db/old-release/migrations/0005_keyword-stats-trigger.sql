-- Keeps keyword_stats (BM25 corpus size and total length per user) exact on every write to documents,
-- including deletes by cascade. Deletes only update: inserting while a user is being deleted would break
-- the foreign key.
CREATE OR REPLACE FUNCTION keyword_stats_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    UPDATE keyword_stats
       SET documents = documents - (OLD.keyword_len > 0)::int, total_len = total_len - OLD.keyword_len
     WHERE user_id = OLD.user_id;
    RETURN OLD;
  END IF;
  INSERT INTO keyword_stats AS s (user_id, documents, total_len)
  VALUES (NEW.user_id,
          (NEW.keyword_len > 0)::int - (CASE WHEN TG_OP = 'UPDATE' THEN (OLD.keyword_len > 0)::int ELSE 0 END),
          NEW.keyword_len - (CASE WHEN TG_OP = 'UPDATE' THEN OLD.keyword_len ELSE 0 END))
  ON CONFLICT (user_id) DO UPDATE
     SET documents = s.documents + EXCLUDED.documents, total_len = s.total_len + EXCLUDED.total_len;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER documents_keyword_stats
AFTER INSERT OR DELETE OR UPDATE OF keyword_len ON documents
FOR EACH ROW EXECUTE FUNCTION keyword_stats_track();
--> statement-breakpoint
INSERT INTO keyword_stats (user_id, documents, total_len)
SELECT user_id, count(*) FILTER (WHERE keyword_len > 0), coalesce(sum(keyword_len), 0) FROM documents GROUP BY user_id
ON CONFLICT (user_id) DO NOTHING;
