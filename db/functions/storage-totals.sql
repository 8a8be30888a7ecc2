-- storage_totals (each user's documents and bytes, every status, original files included), kept exact by
-- triggers on every write to documents and document_files, so a storage limit check reads one row.
--
-- Deletes only update: inserting while a user is being deleted (a cascade) would break the foreign key.

-- A document's size changing, one row at a time.
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

-- Documents inserted or deleted, once per statement: per row, a bulk ingest updated the user's row once per
-- document, each update walking the versions the earlier ones left (see keyword-stats.sql).
CREATE OR REPLACE FUNCTION storage_totals_track_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO storage_totals AS s (user_id, documents, bytes)
    SELECT user_id, count(*), sum(size_bytes) FROM new_rows GROUP BY user_id
    ON CONFLICT (user_id) DO UPDATE SET documents = s.documents + EXCLUDED.documents, bytes = s.bytes + EXCLUDED.bytes;
  ELSE
    -- Deletes only update: inserting while a user is being deleted would break the foreign key.
    UPDATE storage_totals s SET documents = s.documents - o.documents, bytes = s.bytes - o.bytes
      FROM (SELECT user_id, count(*) AS documents, sum(size_bytes) AS bytes FROM old_rows GROUP BY user_id) o
     WHERE s.user_id = o.user_id;
  END IF;
  RETURN NULL;
END $$;

-- A document's original file counts towards its owner's storage limit: bytes move with document_files' size_bytes
-- as with documents'.
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

CREATE OR REPLACE TRIGGER documents_storage_totals
AFTER UPDATE OF size_bytes ON documents
FOR EACH ROW EXECUTE FUNCTION storage_totals_track();

CREATE OR REPLACE TRIGGER documents_storage_totals_insert AFTER INSERT ON documents REFERENCING NEW TABLE AS new_rows
FOR EACH STATEMENT EXECUTE FUNCTION storage_totals_track_rows();

CREATE OR REPLACE TRIGGER documents_storage_totals_delete AFTER DELETE ON documents REFERENCING OLD TABLE AS old_rows
FOR EACH STATEMENT EXECUTE FUNCTION storage_totals_track_rows();

CREATE OR REPLACE TRIGGER document_files_storage_totals
AFTER INSERT OR DELETE OR UPDATE OF size_bytes ON document_files
FOR EACH ROW EXECUTE FUNCTION document_files_storage_track();
