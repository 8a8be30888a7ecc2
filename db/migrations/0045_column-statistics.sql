-- No planner statistics for the wide columns no query filters or joins on: the text, vectors, term lists, files and
-- JSON a row carries. ANALYZE samples up to 30,000 rows a table whatever its size, and most of its time went to
-- these columns (documents.body, chunks.content and tsv, document_terms.terms: 9.6 s of a 20,000-document corpus's
-- ANALYZE, 2.9 s without them) — on the embedded database a time every request waits (src/jobs/table-upkeep.ts).
ALTER TABLE "documents" ALTER COLUMN "body" SET STATISTICS 0;--> statement-breakpoint
ALTER TABLE "documents" ALTER COLUMN "excerpt" SET STATISTICS 0;--> statement-breakpoint
ALTER TABLE "documents" ALTER COLUMN "metadata" SET STATISTICS 0;--> statement-breakpoint
ALTER TABLE "documents" ALTER COLUMN "sections" SET STATISTICS 0;--> statement-breakpoint
ALTER TABLE "documents" ALTER COLUMN "updated_by" SET STATISTICS 0;--> statement-breakpoint
ALTER TABLE "chunks" ALTER COLUMN "content" SET STATISTICS 0;--> statement-breakpoint
ALTER TABLE "chunks" ALTER COLUMN "tsv" SET STATISTICS 0;--> statement-breakpoint
ALTER TABLE "chunks" ALTER COLUMN "embedding" SET STATISTICS 0;--> statement-breakpoint
ALTER TABLE "chunks" ALTER COLUMN "location" SET STATISTICS 0;--> statement-breakpoint
ALTER TABLE "document_terms" ALTER COLUMN "terms" SET STATISTICS 0;--> statement-breakpoint
ALTER TABLE "document_files" ALTER COLUMN "bytes" SET STATISTICS 0;--> statement-breakpoint
ALTER TABLE "document_versions" ALTER COLUMN "body" SET STATISTICS 0;--> statement-breakpoint
ALTER TABLE "activity" ALTER COLUMN "summary" SET STATISTICS 0;--> statement-breakpoint
ALTER TABLE "activity" ALTER COLUMN "actor" SET STATISTICS 0;--> statement-breakpoint
ALTER TABLE "threads" ALTER COLUMN "metadata" SET STATISTICS 0;
