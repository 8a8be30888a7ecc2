-- The postings live in term_blocks now (converted by the previous migration); a view of the same name shows them a
-- row a posting (db/functions/postings-view.sql).
DROP TABLE "postings" CASCADE;
