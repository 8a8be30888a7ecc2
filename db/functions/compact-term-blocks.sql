-- compact_term_blocks(user): a user's newest postings merged into full blocks. Each write appends one block a term
-- (insert_indexed_documents, src/retrieval/keyword-index.ts): a message written alone leaves ~50 blocks of one
-- posting, a bulk batch one block a term of up to 1,000. For every term of the documents numbered since the last
-- compaction (keyword_stats.compacted_upto), the term's blocks of those numbers and the one before them when it is
-- not full are merged in doc_no order and cut every 256 — a contiguous run of the term's blocks, so blocks still
-- cover disjoint ranges — unless that is one block already no larger. Answers the blocks written.
--
-- The user's keyword_stats row is locked first: every write to the user's index locks it (numbering, the statistics
-- trigger) until it commits, so the numbers up to last_no are all written, and none is removed meanwhile.
CREATE OR REPLACE FUNCTION compact_term_blocks(p_user uuid) RETURNS integer LANGUAGE plpgsql
SET enable_hashjoin = off SET enable_mergejoin = off SET work_mem = '64MB' AS $$
DECLARE
  v_from integer;
  v_to integer;
  written integer;
BEGIN
  SELECT compacted_upto, last_no INTO v_from, v_to FROM keyword_stats WHERE user_id = p_user FOR UPDATE;
  IF v_to IS NULL OR v_to <= v_from THEN
    RETURN 0;
  END IF;
  WITH touched AS (
    SELECT DISTINCT u.term COLLATE "C" AS term
      FROM documents d JOIN document_terms t ON t.document_id = d.id CROSS JOIN unnest(t.terms) AS u(term)
     WHERE d.user_id = p_user AND d.doc_no > v_from AND d.doc_no <= v_to),
  runs AS (
    SELECT x.term, r.first_no, r.n FROM touched x CROSS JOIN LATERAL (
      SELECT o.first_no, o.n FROM (
        SELECT b.first_no, b.n FROM term_blocks b
         WHERE b.user_id = p_user AND b.term = x.term AND b.first_no <= v_from ORDER BY b.first_no DESC LIMIT 1) o
       WHERE o.n < 256
      UNION ALL
      SELECT b.first_no, b.n FROM term_blocks b
       WHERE b.user_id = p_user AND b.term = x.term AND b.first_no > v_from AND b.first_no <= v_to) r),
  merging AS (SELECT term FROM runs GROUP BY term HAVING count(*) > 1 OR max(n) > 256),
  gone AS (
    DELETE FROM term_blocks b USING runs r JOIN merging m USING (term)
     WHERE b.user_id = p_user AND b.term = r.term AND b.first_no = r.first_no
    RETURNING b.term, b.doc_nos, b.tfs, b.dls),
  cut AS (
    SELECT g.term, u.no, u.tf, u.dl, (row_number() OVER (PARTITION BY g.term ORDER BY u.no) - 1) / 256 AS part
      FROM gone g CROSS JOIN unnest(g.doc_nos, g.tfs, g.dls) AS u(no, tf, dl))
  INSERT INTO term_blocks (user_id, term, first_no, n, doc_nos, tfs, dls)
  SELECT p_user, term, min(no), count(*), array_agg(no ORDER BY no), array_agg(tf ORDER BY no), array_agg(dl ORDER BY no)
    FROM cut GROUP BY term, part;
  GET DIAGNOSTICS written = ROW_COUNT;
  UPDATE keyword_stats SET compacted_upto = v_to WHERE user_id = p_user;
  RETURN written;
END $$;
