DROP INDEX "documents_tsv_idx";--> statement-breakpoint
ALTER TABLE "documents" DROP COLUMN "tsv";