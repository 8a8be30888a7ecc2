-- A deleted document's postings and terms go with it, by a statement-level trigger (also when a workspace's or an
-- account's deletion cascades to documents): postings have no foreign key and no index by document, which cost
-- two key checks and an index entry on each of the ~100 postings a document writes.
--
-- A document's postings are found through its terms (document_terms), each by the postings' primary key, in key
-- order (the keys sorted in memory first, hence work_mem); never by hashing the postings table, which the planner,
-- without statistics, picks for a statement deleting many documents, and which costs the whole table however few
-- postings go. The keys are a subquery kept apart (OFFSET 0), so each probe is on all three columns of the key
-- rather than a skip scan of the user's terms. Terms are compared COLLATE "C", the postings' collation.
CREATE OR REPLACE FUNCTION postings_cascade() RETURNS trigger LANGUAGE plpgsql
SET enable_hashjoin = off SET enable_mergejoin = off SET work_mem = '32MB' AS $$
BEGIN
  -- A user with no document left (the account, or everything, deleted): their postings by key prefix, in order.
  WITH emptied AS (
    SELECT u.user_id FROM (SELECT DISTINCT o.user_id FROM old_rows o OFFSET 0) u
     WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.user_id = u.user_id)),
  unlisted AS (DELETE FROM document_terms t USING emptied e WHERE t.user_id = e.user_id)
  DELETE FROM postings p USING emptied e WHERE p.user_id = e.user_id;
  -- Otherwise each posting by its key: the document's terms say which.
  WITH gone AS (DELETE FROM document_terms t WHERE t.document_id IN (SELECT id FROM old_rows) RETURNING t.document_id, t.user_id, t.terms)
  DELETE FROM postings p
   USING (SELECT g.user_id, u.term COLLATE "C" AS term, g.document_id FROM gone g CROSS JOIN unnest(g.terms) AS u(term)
          ORDER BY 1, 2, 3 OFFSET 0) k
   WHERE p.user_id = k.user_id AND p.term = k.term AND p.document_id = k.document_id;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER documents_postings_cascade AFTER DELETE ON documents REFERENCING OLD TABLE AS old_rows
FOR EACH STATEMENT EXECUTE FUNCTION postings_cascade();
