-- A document's postings leave the keyword index's blocks with it: when it is deleted (a statement-level trigger, also
-- when a workspace's or an account's deletion cascades to documents) and when it is indexed again
-- (src/retrieval/keyword-index.ts). term_blocks has no foreign key and no index by document.
--
-- remove_postings(ids, doc_nos): the documents' listed terms (document_terms, deleted here) say which terms; a
-- document's posting of a term is in the term's block with the greatest first_no at or below its doc_no (a user's
-- blocks of a term cover disjoint ranges): one probe of the primary key a term, each block then rewritten once
-- without the documents' entries, or deleted when none is left. The keys are kept apart (OFFSET 0) and probed in key
-- order — never a hash of the blocks, which the planner picks without statistics and which reads the whole table.
CREATE OR REPLACE FUNCTION remove_postings(p_ids uuid[], p_nos integer[]) RETURNS void LANGUAGE plpgsql
SET enable_hashjoin = off SET enable_mergejoin = off SET work_mem = '32MB' AS $$
BEGIN
  WITH gone AS (
    DELETE FROM document_terms t USING unnest(p_ids, p_nos) AS x(id, no) WHERE t.document_id = x.id
    RETURNING x.no, t.user_id, t.terms),
  keys AS (
    SELECT g.user_id, u.term COLLATE "C" AS term, g.no
      FROM gone g CROSS JOIN unnest(g.terms) AS u(term)
     WHERE g.no IS NOT NULL
     ORDER BY 1, 2, 3 OFFSET 0),
  hit AS (
    SELECT k.user_id, k.term, b.first_no, array_agg(k.no) AS nos, b.n - count(*) AS left_over
      FROM keys k CROSS JOIN LATERAL (
        SELECT b.first_no, b.n FROM term_blocks b
         WHERE b.user_id = k.user_id AND b.term = k.term AND b.first_no <= k.no ORDER BY b.first_no DESC LIMIT 1) b
     GROUP BY k.user_id, k.term, b.first_no, b.n),
  emptied AS (
    DELETE FROM term_blocks b USING hit h
     WHERE h.left_over <= 0 AND b.user_id = h.user_id AND b.term = h.term AND b.first_no = h.first_no)
  UPDATE term_blocks b
     SET n = k.n, doc_nos = k.doc_nos, tfs = k.tfs, dls = k.dls
    FROM hit h CROSS JOIN LATERAL (
      SELECT count(*)::smallint AS n, array_agg(x.no ORDER BY x.i) AS doc_nos, array_agg(x.tf ORDER BY x.i) AS tfs,
             array_agg(x.dl ORDER BY x.i) AS dls
        FROM term_blocks o CROSS JOIN unnest(o.doc_nos, o.tfs, o.dls) WITH ORDINALITY AS x(no, tf, dl, i)
       WHERE o.user_id = h.user_id AND o.term = h.term AND o.first_no = h.first_no AND x.no <> ALL (h.nos)) k
   WHERE h.left_over > 0 AND b.user_id = h.user_id AND b.term = h.term AND b.first_no = h.first_no;
END $$;

CREATE OR REPLACE FUNCTION postings_cascade() RETURNS trigger LANGUAGE plpgsql
SET enable_hashjoin = off SET enable_mergejoin = off AS $$
BEGIN
  -- A user with no document left (the account, or everything, deleted): their blocks and terms by key prefix.
  WITH emptied AS (
    SELECT u.user_id FROM (SELECT DISTINCT o.user_id FROM old_rows o OFFSET 0) u
     WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.user_id = u.user_id)),
  unlisted AS (DELETE FROM document_terms t USING emptied e WHERE t.user_id = e.user_id)
  DELETE FROM term_blocks b USING emptied e WHERE b.user_id = e.user_id;
  -- Otherwise each document's postings out of its terms' blocks.
  PERFORM remove_postings(array_agg(o.id), array_agg(o.doc_no)) FROM old_rows o;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER documents_postings_cascade AFTER DELETE ON documents REFERENCING OLD TABLE AS old_rows
FOR EACH STATEMENT EXECUTE FUNCTION postings_cascade();
