ALTER TABLE "settings" ADD COLUMN "remember_conversations" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "v1_responses" ADD COLUMN "thread_id" uuid;--> statement-breakpoint
ALTER TABLE "v1_responses" ADD CONSTRAINT "v1_responses_thread_id_threads_id_fk" FOREIGN KEY ("thread_id") REFERENCES "public"."threads"("id") ON DELETE set null ON UPDATE no action;