-- A deleted document's postings go with it, as the foreign key that 0023 dropped did: one statement-level
-- trigger per deleting statement (also a workspace's or an account's deletion cascading to documents), instead
-- of two key checks on each of the ~100 postings every document writes.
CREATE OR REPLACE FUNCTION postings_cascade() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM postings WHERE document_id IN (SELECT id FROM old_rows);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER documents_postings_cascade AFTER DELETE ON documents REFERENCING OLD TABLE AS old_rows
FOR EACH STATEMENT EXECUTE FUNCTION postings_cascade();
--> statement-breakpoint
-- Postings whose document was deleted before the trigger existed cannot be: the key was in force until 0023.
DELETE FROM postings p WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.id = p.document_id);
