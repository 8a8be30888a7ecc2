CREATE TABLE "document_terms" (
	"document_id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"terms" text[] NOT NULL
);
--> statement-breakpoint
DROP INDEX "postings_document_idx";