-- A document's postings are found through its terms (document_terms, migration 0031), by the postings' primary key,
-- instead of through postings_document_idx (dropped in 0031): that index took an entry for each of the ~100
-- postings a document writes — a fifth of a bulk ingest batch — to serve only deletions, re-indexing and the
-- keyword copy's catch-up. document_terms is written and deleted by the statements that write and delete
-- postings: insert_indexed_documents and keyword-index.ts, and postings_cascade when documents go.
-- Terms are compared COLLATE "C", the postings' collation, so each lookup is a primary-key probe. The functions that
-- read and write them are in db/functions/ (postings-cascade.sql, insert-indexed-documents.sql, index-changes-since.sql).
INSERT INTO document_terms (document_id, user_id, terms)
SELECT document_id, user_id, array_agg(term) FROM postings GROUP BY document_id, user_id;
