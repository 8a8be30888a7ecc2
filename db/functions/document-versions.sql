-- Every earlier version of a document is kept (document_versions) when its title, body, tags, kind or status
-- changes, by a trigger, so no write path (an edit, a re-ingest, a connector sync, approve, archive) can change a
-- document without leaving its history.
--
-- The row as it was, with who made it (updated_by) and when, and the document's version number moves on. The body
-- is copied only when it changed: a status change keeps a null, read as "the same as the next version".
CREATE OR REPLACE FUNCTION keep_document_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.title IS DISTINCT FROM OLD.title OR NEW.body IS DISTINCT FROM OLD.body OR NEW.tags IS DISTINCT FROM OLD.tags
     OR NEW.kind IS DISTINCT FROM OLD.kind OR NEW.status IS DISTINCT FROM OLD.status THEN
    INSERT INTO document_versions (id, document_id, user_id, version, title, body, tags, kind, status, actor, at)
    VALUES (gen_random_uuid(), OLD.id, OLD.user_id, OLD.version, OLD.title,
      CASE WHEN NEW.body IS DISTINCT FROM OLD.body THEN OLD.body END, OLD.tags, OLD.kind, OLD.status, OLD.updated_by, OLD.updated_at);
    NEW.version := OLD.version + 1;
  END IF;
  RETURN NEW;
END $$;

CREATE OR REPLACE TRIGGER documents_keep_version BEFORE UPDATE OF title, body, tags, kind, status ON documents
  FOR EACH ROW EXECUTE FUNCTION keep_document_version();
