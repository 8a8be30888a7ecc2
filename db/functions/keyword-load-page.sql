-- A page of a keyword index's load (src/retrieval/keyword-cache.ts): the user's next p_max terms after p_after (from
-- the first when null), each with its postings as three strings — doc_nos, tfs and dls, space-separated, in doc_no
-- order — a row a term, its blocks' arrays joined, so no posting is a row anywhere.
--
-- Read along the blocks' primary key (user_id, term, first_no) and stopped at the limit: the planner is told so (no
-- sort, no hash aggregate, no bitmap or sequential scan) for this function alone. Without statistics — PGlite runs no
-- autovacuum, and a load follows a bulk ingest before any ANALYZE — it read and grouped every row of the user for
-- each page, whatever its size.
DROP FUNCTION IF EXISTS keyword_load_page(uuid, text, integer);
CREATE FUNCTION keyword_load_page(p_user uuid, p_after text, p_max integer)
RETURNS TABLE (term text, nos text, tfs text, dls text) LANGUAGE sql STABLE
SET enable_sort = off
SET enable_hashagg = off
SET enable_bitmapscan = off
SET enable_seqscan = off
AS $$
  SELECT b.term, string_agg(array_to_string(b.doc_nos, ' '), ' ' ORDER BY b.first_no),
         string_agg(array_to_string(b.tfs, ' '), ' ' ORDER BY b.first_no), string_agg(array_to_string(b.dls, ' '), ' ' ORDER BY b.first_no)
    FROM term_blocks b
   WHERE b.user_id = p_user AND b.term > coalesce(p_after, '')
   GROUP BY b.term ORDER BY b.term LIMIT p_max
$$;
