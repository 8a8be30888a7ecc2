-- term_blocks partitioned by `merged` (db/schema/search.ts says why): the blocks of completed ranges in
-- term_blocks_main, the small blocks and the merges of ranges still filling in term_blocks_tail. A block is final
-- when its range starts at or below the one compaction would start from (keyword_stats.compacted_upto rounded down to
-- a range of 4,096, src/retrieval/block-compaction.ts): later blocks go to the tail, where the next merge finds them.
-- The postings view reads the table: dropped here, made again over the new one by db/functions/postings-view.sql.
DROP VIEW IF EXISTS "postings";--> statement-breakpoint
ALTER TABLE "term_blocks" RENAME TO "term_blocks_unpartitioned";--> statement-breakpoint
ALTER TABLE "term_blocks_unpartitioned" RENAME CONSTRAINT "term_blocks_user_id_term_first_no_pk" TO "term_blocks_unpartitioned_pk";--> statement-breakpoint
CREATE TABLE "term_blocks" (
	"user_id" uuid NOT NULL,
	"term" text collate "C" NOT NULL,
	"first_no" integer NOT NULL,
	"n" smallint NOT NULL,
	"doc_nos" integer[] NOT NULL,
	"tfs" real[] NOT NULL,
	"dls" real[] NOT NULL,
	"merged" boolean DEFAULT false NOT NULL,
	CONSTRAINT "term_blocks_user_id_term_first_no_merged_pk" PRIMARY KEY("user_id","term","first_no","merged")
) PARTITION BY LIST ("merged");--> statement-breakpoint
CREATE TABLE "term_blocks_main" PARTITION OF "term_blocks" FOR VALUES IN (true);--> statement-breakpoint
CREATE TABLE "term_blocks_tail" PARTITION OF "term_blocks" FOR VALUES IN (false);--> statement-breakpoint
INSERT INTO "term_blocks" (user_id, term, first_no, n, doc_nos, tfs, dls, merged)
SELECT b.user_id, b.term, b.first_no, b.n, b.doc_nos, b.tfs, b.dls, b.first_no <= (coalesce(s.compacted_upto, 0) / 4096) * 4096
  FROM "term_blocks_unpartitioned" b LEFT JOIN "keyword_stats" s ON s.user_id = b.user_id;--> statement-breakpoint
DROP TABLE "term_blocks_unpartitioned";
