CREATE TABLE "storage_totals" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"documents" integer DEFAULT 0 NOT NULL,
	"bytes" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "storage_totals" ADD CONSTRAINT "storage_totals_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;