-- keyword_stats and storage_totals move once per statement that inserts or deletes documents, not once per row:
-- a bulk ingest of 1,000 documents updated each user's row 1,000 times in one transaction, and every update
-- walked the chain of versions the earlier ones left (quadratic: half a second a batch). Updates stay per row
-- (they change one document at a time, and only the columns 0014 and 0010 name fire them).
CREATE OR REPLACE FUNCTION keyword_stats_track_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO keyword_stats AS s (user_id, documents, total_len, version)
    SELECT user_id, count(*) FILTER (WHERE keyword_len > 0), sum(keyword_len::float8), 1 FROM new_rows GROUP BY user_id
    ON CONFLICT (user_id) DO UPDATE
       SET documents = s.documents + EXCLUDED.documents, total_len = s.total_len + EXCLUDED.total_len, version = s.version + 1;
  ELSE
    UPDATE keyword_stats s SET documents = s.documents - o.documents, total_len = s.total_len - o.total_len, version = s.version + 1
      FROM (SELECT user_id, count(*) FILTER (WHERE keyword_len > 0) AS documents, sum(keyword_len::float8) AS total_len FROM old_rows GROUP BY user_id) o
     WHERE s.user_id = o.user_id;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
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
--> statement-breakpoint
DROP TRIGGER documents_keyword_stats ON documents;
--> statement-breakpoint
CREATE TRIGGER documents_keyword_stats
AFTER UPDATE OF keyword_len, status, workspace_id, kind, source, tags, pinned, rating, user_id ON documents
FOR EACH ROW EXECUTE FUNCTION keyword_stats_track();
--> statement-breakpoint
CREATE TRIGGER documents_keyword_stats_insert AFTER INSERT ON documents REFERENCING NEW TABLE AS new_rows
FOR EACH STATEMENT EXECUTE FUNCTION keyword_stats_track_rows();
--> statement-breakpoint
CREATE TRIGGER documents_keyword_stats_delete AFTER DELETE ON documents REFERENCING OLD TABLE AS old_rows
FOR EACH STATEMENT EXECUTE FUNCTION keyword_stats_track_rows();
--> statement-breakpoint
DROP TRIGGER documents_storage_totals ON documents;
--> statement-breakpoint
CREATE TRIGGER documents_storage_totals
AFTER UPDATE OF size_bytes ON documents
FOR EACH ROW EXECUTE FUNCTION storage_totals_track();
--> statement-breakpoint
CREATE TRIGGER documents_storage_totals_insert AFTER INSERT ON documents REFERENCING NEW TABLE AS new_rows
FOR EACH STATEMENT EXECUTE FUNCTION storage_totals_track_rows();
--> statement-breakpoint
CREATE TRIGGER documents_storage_totals_delete AFTER DELETE ON documents REFERENCING OLD TABLE AS old_rows
FOR EACH STATEMENT EXECUTE FUNCTION storage_totals_track_rows();
