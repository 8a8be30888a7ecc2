-- Keeps storage_totals (documents and bytes per user, every status) exact on every write to documents,
-- including deletes by cascade. Deletes only update: inserting while a user is being deleted would break
-- the foreign key.
CREATE OR REPLACE FUNCTION storage_totals_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    UPDATE storage_totals SET documents = documents - 1, bytes = bytes - OLD.size_bytes WHERE user_id = OLD.user_id;
    RETURN OLD;
  END IF;
  INSERT INTO storage_totals AS s (user_id, documents, bytes)
  VALUES (NEW.user_id,
          CASE WHEN TG_OP = 'INSERT' THEN 1 ELSE 0 END,
          NEW.size_bytes - (CASE WHEN TG_OP = 'UPDATE' THEN OLD.size_bytes ELSE 0 END))
  ON CONFLICT (user_id) DO UPDATE
     SET documents = s.documents + EXCLUDED.documents, bytes = s.bytes + EXCLUDED.bytes;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER documents_storage_totals
AFTER INSERT OR DELETE OR UPDATE OF size_bytes ON documents
FOR EACH ROW EXECUTE FUNCTION storage_totals_track();
--> statement-breakpoint
INSERT INTO storage_totals (user_id, documents, bytes)
SELECT user_id, count(*), coalesce(sum(size_bytes), 0) FROM documents GROUP BY user_id
ON CONFLICT (user_id) DO NOTHING;
