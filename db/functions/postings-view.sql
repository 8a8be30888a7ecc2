-- postings: the keyword index one posting a row, each with its document's id — the blocks (term_blocks) opened. For
-- reading and checking (tests, diagnostics); ranking reads the blocks. A posting whose document is gone shows a null
-- document_id, which must never be.
CREATE OR REPLACE VIEW postings AS
SELECT b.user_id, b.term, d.id AS document_id, u.no AS doc_no, u.tf, u.dl
  FROM term_blocks b
 CROSS JOIN unnest(b.doc_nos, b.tfs, b.dls) AS u(no, tf, dl)
  LEFT JOIN documents d ON d.user_id = b.user_id AND d.doc_no = u.no;
