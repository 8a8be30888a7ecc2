ALTER TABLE "postings" DROP CONSTRAINT "postings_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "postings" DROP CONSTRAINT "postings_document_id_documents_id_fk";
--> statement-breakpoint
DROP INDEX "chunks_tsv_idx";