-- The keyword index in blocks a term (term_blocks: doc_nos, tfs, dls of up to 256 documents a row) instead of a
-- row a posting: ~14× smaller. Documents take numbers (doc_no) in their owner's index; the postings of an existing
-- data directory are converted here, and the postings table goes in the next migration.
CREATE TABLE "term_blocks" (
	"user_id" uuid NOT NULL,
	"term" text collate "C" NOT NULL,
	"first_no" integer NOT NULL,
	"n" smallint NOT NULL,
	"doc_nos" integer[] NOT NULL,
	"tfs" real[] NOT NULL,
	"dls" real[] NOT NULL,
	CONSTRAINT "term_blocks_user_id_term_first_no_pk" PRIMARY KEY("user_id","term","first_no")
);
--> statement-breakpoint
ALTER TABLE "documents" ADD COLUMN "doc_no" integer;--> statement-breakpoint
ALTER TABLE "keyword_stats" ADD COLUMN "last_no" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "keyword_stats" ADD COLUMN "compacted_upto" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Keyword-indexed documents (those with their terms listed) are numbered in id order (ids are time-ordered), each
-- user's from 1; the others take a number when they are indexed.
UPDATE "documents" d SET "doc_no" = x.no
  FROM (SELECT d.id, row_number() OVER (PARTITION BY d.user_id ORDER BY d.id)::int AS no
          FROM "documents" d WHERE EXISTS (SELECT 1 FROM "document_terms" t WHERE t.document_id = d.id)) x
 WHERE d.id = x.id;--> statement-breakpoint
CREATE UNIQUE INDEX "documents_user_doc_no_key" ON "documents" USING btree ("user_id","doc_no");--> statement-breakpoint
UPDATE "keyword_stats" s SET "last_no" = x.last, "compacted_upto" = x.last
  FROM (SELECT user_id, max(doc_no) AS last FROM "documents" WHERE doc_no IS NOT NULL GROUP BY user_id) x
 WHERE s.user_id = x.user_id;--> statement-breakpoint
-- Each term's postings in doc_no order, cut every 256.
INSERT INTO "term_blocks" (user_id, term, first_no, n, doc_nos, tfs, dls)
SELECT user_id, term, min(no), count(*), array_agg(no ORDER BY no), array_agg(tf ORDER BY no), array_agg(dl ORDER BY no)
  FROM (SELECT p.user_id, p.term, d.doc_no AS no, p.tf, p.dl,
               (row_number() OVER (PARTITION BY p.user_id, p.term ORDER BY d.doc_no) - 1) / 256 AS part
          FROM "postings" p JOIN "documents" d ON d.id = p.document_id AND d.doc_no IS NOT NULL) x
 GROUP BY user_id, term, part;
