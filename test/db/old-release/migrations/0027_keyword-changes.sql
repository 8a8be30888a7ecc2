CREATE TABLE "keyword_changes" (
	"user_id" uuid NOT NULL,
	"version" bigint NOT NULL,
	"document_id" uuid NOT NULL,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "keyword_changes" ADD CONSTRAINT "keyword_changes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "keyword_changes_user_version_idx" ON "keyword_changes" USING btree ("user_id","version");