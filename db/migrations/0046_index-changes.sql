-- One change log and one version for the index caches: index_changes, written by the document and chunk triggers
-- at keyword_stats.version, replaces keyword_changes (at version) and embedding_changes (at embedding_version); the
-- triggers and index_changes_since, which replaces keyword_changes_since and vector_changes_since, are in
-- db/functions/ (keyword-stats.sql, chunk-vectors.sql, index-changes-since.sql), applied after the migrations.
-- The version goes on from the sum of the two (what a cached vector index was labelled with), above both: an index
-- cached at an older version finds the new log empty there and reloads in full. The old logs are not carried over.
UPDATE "keyword_stats" SET "version" = "version" + "embedding_version" WHERE "embedding_version" <> 0;--> statement-breakpoint
DROP FUNCTION IF EXISTS keyword_changes_since(uuid, bigint, integer);--> statement-breakpoint
DROP FUNCTION IF EXISTS vector_changes_since(uuid, bigint, bigint, text, integer);--> statement-breakpoint
CREATE TABLE "index_changes" (
	"user_id" uuid NOT NULL,
	"version" bigint NOT NULL,
	"document_id" uuid NOT NULL,
	"vectors_only" boolean DEFAULT false NOT NULL,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
DROP TABLE "embedding_changes" CASCADE;--> statement-breakpoint
DROP TABLE "keyword_changes" CASCADE;--> statement-breakpoint
ALTER TABLE "index_changes" ADD CONSTRAINT "index_changes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "index_changes_user_version_idx" ON "index_changes" USING btree ("user_id","version");--> statement-breakpoint
ALTER TABLE "keyword_stats" DROP COLUMN "embedding_version";