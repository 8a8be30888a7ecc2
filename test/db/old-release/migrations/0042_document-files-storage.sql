-- A document's original file counts towards its owner's storage limit: storage_totals.bytes moves with
-- document_files' size_bytes as it does with documents' (0010, 0025), so a limit check still reads one row.
CREATE OR REPLACE FUNCTION document_files_storage_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO storage_totals AS s (user_id, documents, bytes) VALUES (NEW.user_id, 0, NEW.size_bytes)
    ON CONFLICT (user_id) DO UPDATE SET bytes = s.bytes + EXCLUDED.bytes;
  ELSIF TG_OP = 'UPDATE' THEN
    UPDATE storage_totals SET bytes = bytes - OLD.size_bytes + NEW.size_bytes WHERE user_id = NEW.user_id;
  ELSE
    -- Deletes only update: inserting while a user is being deleted would break the foreign key.
    UPDATE storage_totals SET bytes = bytes - OLD.size_bytes WHERE user_id = OLD.user_id;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER document_files_storage_totals
AFTER INSERT OR DELETE OR UPDATE OF size_bytes ON document_files
FOR EACH ROW EXECUTE FUNCTION document_files_storage_track();
