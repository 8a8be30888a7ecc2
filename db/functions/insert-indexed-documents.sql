-- insert_indexed_documents: new documents with their chunks, postings (in blocks), terms, keyword length, embedding jobs and
-- ingest events in one call (src/modules/documents/documents.insert.ts passes the rows as JSON).
--
-- A function, so the statement is planned once per connection and its plan reused: planning it took longer than
-- running it for one document. It indexes as src/retrieval/keyword-index.ts does one document at a time (the text
-- configuration and title weight are passed in), and chunks section by section as src/retrieval/chunking.ts
-- (chunkSections): each document and each chunk carries the weight of its own words (1 for a document,
-- MESSAGE_WEIGHT for a message; the title and tags count p_title_weight times that), and a message its context's
-- words — the messages before it in its thread (src/retrieval/message-context.ts) — counted context_weight times.
-- Each document takes the next number of its owner's keyword index (doc_no, from keyword_stats.last_no, in id order);
-- it writes each document's terms with their tfs (document_terms), through which its postings are found, and the
-- batch's postings as one block a term (term_blocks; compaction merges a term's small blocks later).
-- A document happened when it was ingested unless told otherwise (occurred_at); updated_by says who made it.
-- Each document's first job is p_job_kind: embed-document, or suggest-links when no embedding model is configured
-- (the document is then indexed at insert, its index_status given so by the caller).
DROP FUNCTION IF EXISTS insert_indexed_documents(json, json, regconfig, integer, integer, timestamptz);
CREATE OR REPLACE FUNCTION insert_indexed_documents(p_docs json, p_parts json, p_config regconfig, p_title_weight integer, p_job_kind text, p_max_attempts integer, p_now timestamptz)
-- Enough memory that a batch's term counts (~100k rows for 1,000 abstracts) are grouped without spilling to disk;
-- and always the generic plan: the JSON parameters never change the estimates, so a custom plan is only cost.
RETURNS integer LANGUAGE plpgsql SET work_mem = '32MB' SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  written integer;
BEGIN
  WITH d AS (
    SELECT * FROM json_to_recordset(p_docs) AS x(
      id uuid, user_id uuid, workspace_id uuid, title text, excerpt text, body text, tags text[], kind text, status text,
      archived_from text, source text, source_ref text, external_id text, url text, content_hash text, size_bytes integer,
      pinned boolean, rating smallint, metadata jsonb, index_status text, created_at timestamptz, updated_at timestamptz,
      occurred_at timestamptz, thread_id uuid, "position" integer, speaker text, sections jsonb, updated_by jsonb, heading text, weight integer, context text, context_weight integer,
      job_id uuid, event_id uuid)),
  c AS (
    SELECT x.*, to_tsvector(p_config, x.span) AS tsv
    FROM json_to_recordset(p_parts) AS x(id uuid, document_id uuid, ordinal integer, start_offset integer, content_from integer, content_chars integer, span text, weight integer, location jsonb)),
  counted AS (SELECT user_id, count(*)::int AS docs FROM d GROUP BY user_id),
  numbered AS (
    INSERT INTO keyword_stats AS s (user_id, last_no) SELECT user_id, docs FROM counted
    ON CONFLICT (user_id) DO UPDATE SET last_no = s.last_no + EXCLUDED.last_no
    RETURNING s.user_id, s.last_no),
  nos AS (
    SELECT d.id, (n.last_no - c.docs + row_number() OVER (PARTITION BY d.user_id ORDER BY d.id))::int AS doc_no
      FROM d JOIN counted c USING (user_id) JOIN numbered n USING (user_id)),
  terms AS (
    SELECT c.document_id, t.lexeme, c.weight * coalesce(array_length(t.positions, 1), 1) AS tf FROM c, unnest(c.tsv) t
    UNION ALL
    SELECT d.id, t.lexeme, p_title_weight * d.weight * coalesce(array_length(t.positions, 1), 1) FROM d, unnest(to_tsvector(p_config, d.heading)) t
    UNION ALL
    SELECT d.id, t.lexeme, d.context_weight * coalesce(array_length(t.positions, 1), 1) FROM d, unnest(to_tsvector(p_config, d.context)) t),
  p AS (SELECT document_id, lexeme, sum(tf)::real AS tf FROM terms GROUP BY document_id, lexeme),
  len AS (SELECT document_id, sum(tf)::real AS dl, array_agg(lexeme ORDER BY lexeme) AS terms, array_agg(tf ORDER BY lexeme) AS tfs
          FROM p GROUP BY document_id),
  new_documents AS (
    INSERT INTO documents (id, user_id, workspace_id, title, excerpt, body, tags, kind, status, archived_from, source, source_ref,
      external_id, url, content_hash, size_bytes, pinned, rating, metadata, index_status, keyword_len, created_at, updated_at,
      occurred_at, thread_id, "position", speaker, sections, updated_by, doc_no)
    SELECT d.id, d.user_id, d.workspace_id, d.title, d.excerpt, d.body, d.tags, d.kind, d.status, d.archived_from, d.source, d.source_ref,
      d.external_id, d.url, d.content_hash, d.size_bytes, d.pinned, d.rating, d.metadata, d.index_status, coalesce(len.dl, 0), d.created_at, d.updated_at,
      coalesce(d.occurred_at, d.created_at), d.thread_id, d."position", d.speaker, d.sections, d.updated_by, nos.doc_no
    FROM d JOIN nos ON nos.id = d.id LEFT JOIN len ON len.document_id = d.id
    RETURNING id),
  new_chunks AS (
    INSERT INTO chunks (id, user_id, document_id, workspace_id, ordinal, start_offset, content_from, content_chars, tsv, location)
    SELECT c.id, d.user_id, c.document_id, d.workspace_id, c.ordinal, c.start_offset, c.content_from, c.content_chars, c.tsv, c.location FROM c JOIN d ON d.id = c.document_id),
  new_blocks AS (
    INSERT INTO term_blocks (user_id, term, first_no, n, doc_nos, tfs, dls)
    SELECT d.user_id, p.lexeme, min(nos.doc_no), count(*), array_agg(nos.doc_no ORDER BY nos.doc_no),
           array_agg(p.tf ORDER BY nos.doc_no), array_agg(len.dl ORDER BY nos.doc_no)
      FROM p JOIN len USING (document_id) JOIN d ON d.id = p.document_id JOIN nos ON nos.id = p.document_id
     GROUP BY d.user_id, p.lexeme),
  new_terms AS (
    INSERT INTO document_terms (document_id, user_id, terms, tfs) SELECT len.document_id, d.user_id, len.terms, len.tfs FROM len JOIN d ON d.id = len.document_id),
  new_jobs AS (
    INSERT INTO jobs (id, user_id, kind, payload, status, max_attempts, run_at, created_at, updated_at)
    SELECT d.job_id, d.user_id, p_job_kind, json_build_object('document_id', d.id)::jsonb, 'queued', p_max_attempts, p_now, p_now, p_now FROM d),
  new_events AS (
    INSERT INTO events (id, user_id, type, created_at) SELECT d.event_id, d.user_id, 'ingest', d.created_at FROM d)
  SELECT count(*) INTO written FROM new_documents;
  RETURN written;
END $$;
