-- Postings written before 0006 carry dl = 0; copy each document's length in.
UPDATE postings p SET dl = d.keyword_len FROM documents d WHERE d.id = p.document_id AND p.dl <> d.keyword_len;
