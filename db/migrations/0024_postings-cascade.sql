-- A deleted document's postings go with it, as the foreign key that 0023 dropped did: a trigger, in
-- db/functions/postings-cascade.sql (every SQL function and trigger is defined once there, applied after the migrations).
-- Postings whose document was deleted before the trigger existed cannot be: the key was in force until 0023.
DELETE FROM postings p WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.id = p.document_id);
