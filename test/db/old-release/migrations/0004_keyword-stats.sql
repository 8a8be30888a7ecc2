CREATE TABLE "keyword_stats" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"documents" integer DEFAULT 0 NOT NULL,
	"total_len" double precision DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "keyword_stats" ADD CONSTRAINT "keyword_stats_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;