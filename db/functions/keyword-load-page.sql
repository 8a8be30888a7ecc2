-- A page of a keyword index's load (src/retrieval/keyword-cache.ts): the user's next p_max terms after p_after (from
-- the first when null), each with its postings as one string "document tf dl …" in document order — a row a term
-- instead of a row a posting (row handling is most of a load).
--
-- Read along the postings' primary key (user_id, term, document_id) and stopped at the limit: the planner is told so
-- (no sort, no hash aggregate, no bitmap or sequential scan) for this function alone. Without statistics — PGlite
-- runs no autovacuum, and a load follows a bulk ingest before any ANALYZE — it read and grouped every posting of the
-- user for each page, whatever its size: pages shrank to their minimum and a load of 1,000 documents took 850
-- statements, a fifth of the ingest's time (bench:ingest).
CREATE OR REPLACE FUNCTION keyword_load_page(p_user uuid, p_after text, p_max integer)
RETURNS TABLE (term text, list text) LANGUAGE sql STABLE
SET enable_sort = off
SET enable_hashagg = off
SET enable_bitmapscan = off
SET enable_seqscan = off
AS $$
  SELECT p.term, string_agg(p.document_id::text || ' ' || p.tf::text || ' ' || p.dl::text, ' ' ORDER BY p.document_id)
    FROM postings p
   WHERE p.user_id = p_user AND p.term > coalesce(p_after, '')
   GROUP BY p.term ORDER BY p.term LIMIT p_max
$$;
