-- compact_term_blocks(user, range, from, to, terms): a user's newest postings merged into full blocks. Each write
-- appends one block a term (insert_indexed_documents, src/retrieval/keyword-index.ts): a message written alone leaves
-- ~50 blocks of one posting, each insert of a bulk request (a group of up to 100 documents) ~30 blocks a document of ~3 postings.
-- Numbers are cut in ranges of p_range (1..p_range, the next p_range…): a term's blocks of one range are joined in
-- doc_no order and cut every 256 — a contiguous run of the term's blocks, so blocks still cover disjoint ranges —
-- for each range holding a number not compacted yet (keyword_stats.compacted_upto: `from` is its range's start, `to`
-- the last number given when the compaction began), unless a term has one block there already no larger (and final). A
-- completed range is never rewritten again (only deletions touch it), so a posting is written about twice, not once
-- for every later compaction; it goes to the partition term_blocks_main, the rest to term_blocks_tail (both merged
-- away blocks and merges of a range still filling: the dead rows a merge leaves are all in the tail).
-- A compaction is a statement for each slice of its terms
-- (src/retrieval/block-compaction.ts), so requests and the embedded checkpointer have turns between them (a range's
-- merge writes ~15–20 MB of log in all). Answers the blocks written.
--
-- The user's keyword_stats row is locked first: every write to the user's index locks it (numbering, the statistics
-- trigger) until it commits, so no posting of these blocks is removed meanwhile; the numbers up to `to` were
-- committed when it was read, and later writes' blocks all start past it.

-- Arrays joined end to end, as an aggregate (array_cat over the rows, in the order asked).
CREATE OR REPLACE AGGREGATE blocks_cat(anycompatiblearray) (SFUNC = array_cat, STYPE = anycompatiblearray, INITCOND = '{}');

DROP FUNCTION IF EXISTS compact_term_blocks(uuid);
DROP FUNCTION IF EXISTS compact_term_blocks(uuid, integer);
CREATE OR REPLACE FUNCTION compact_term_blocks(p_user uuid, p_range integer, p_from integer, p_to integer, p_terms text[])
RETURNS integer LANGUAGE plpgsql SET enable_hashjoin = off SET enable_mergejoin = off SET work_mem = '64MB' AS $$
DECLARE
  written integer;
BEGIN
  PERFORM 1 FROM keyword_stats WHERE user_id = p_user FOR UPDATE;
  -- Each term's blocks numbered in (p_from, p_to], by range, with how many a range has and its largest (a window: no
  -- join of two lists). OFFSET 0 keeps the lateral a probe of the key a term: flattened, it was a join of every term
  -- with every block.
  WITH runs AS (
    SELECT x.term, b.first_no, b.merged, count(*) OVER w AS blocks, max(b.n) OVER w AS largest
      FROM unnest(p_terms) AS x(term) CROSS JOIN LATERAL (
        SELECT b.first_no, b.n, b.merged FROM term_blocks b
         WHERE b.user_id = p_user AND b.term = x.term COLLATE "C" AND b.first_no > p_from AND b.first_no <= p_to OFFSET 0) b
    WINDOW w AS (PARTITION BY x.term, (b.first_no - 1) / p_range)),
  gone AS (
    DELETE FROM term_blocks b USING runs r
     -- A block alone in its range is rewritten only to leave the tail once the range is complete.
     WHERE (r.blocks > 1 OR r.largest > 256 OR (NOT r.merged AND ((r.first_no - 1) / p_range + 1) * p_range <= p_to))
       AND b.user_id = p_user AND b.term = r.term COLLATE "C" AND b.first_no = r.first_no
    RETURNING b.term, b.first_no, b.doc_nos, b.tfs, b.dls),
  -- A run's arrays joined in block order (each sorted, over disjoint ranges: so is the whole), then cut.
  merged AS (
    SELECT term, blocks_cat(doc_nos ORDER BY first_no) AS doc_nos, blocks_cat(tfs ORDER BY first_no) AS tfs,
           blocks_cat(dls ORDER BY first_no) AS dls
      FROM gone GROUP BY term, (first_no - 1) / p_range)
  -- A completed range's blocks (its last number given: p_to at or past its end) are final: term_blocks_main. A range
  -- still filling is merged again by the next compaction: its blocks stay in term_blocks_tail.
  INSERT INTO term_blocks (user_id, term, first_no, n, doc_nos, tfs, dls, merged)
  SELECT p_user, m.term, m.doc_nos[k * 256 + 1], least(256, cardinality(m.doc_nos) - k * 256),
         m.doc_nos[k * 256 + 1 : k * 256 + 256], m.tfs[k * 256 + 1 : k * 256 + 256], m.dls[k * 256 + 1 : k * 256 + 256],
         ((m.doc_nos[1] - 1) / p_range + 1) * p_range <= p_to
    FROM merged m CROSS JOIN generate_series(0, (cardinality(m.doc_nos) - 1) / 256) AS k;
  GET DIAGNOSTICS written = ROW_COUNT;
  RETURN written;
END $$;
