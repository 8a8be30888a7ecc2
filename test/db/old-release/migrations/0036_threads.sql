CREATE TABLE "threads" (
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"workspace_id" uuid NOT NULL,
	"title" text NOT NULL,
	"external_id" text,
	"conversation_id" uuid,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"extracted_through" integer DEFAULT -1 NOT NULL,
	"extraction" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "documents" ADD COLUMN "occurred_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "documents" ADD COLUMN "thread_id" uuid;--> statement-breakpoint
ALTER TABLE "documents" ADD COLUMN "position" integer;--> statement-breakpoint
ALTER TABLE "documents" ADD COLUMN "speaker" text;--> statement-breakpoint
ALTER TABLE "threads" ADD CONSTRAINT "threads_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "threads" ADD CONSTRAINT "threads_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "threads_user_idx" ON "threads" USING btree ("user_id","updated_at");--> statement-breakpoint
CREATE UNIQUE INDEX "threads_external_key" ON "threads" USING btree ("user_id","external_id") WHERE external_id is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "threads_conversation_key" ON "threads" USING btree ("conversation_id") WHERE conversation_id is not null;--> statement-breakpoint
ALTER TABLE "documents" ADD CONSTRAINT "documents_thread_id_threads_id_fk" FOREIGN KEY ("thread_id") REFERENCES "public"."threads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "documents_thread_position_key" ON "documents" USING btree ("thread_id","position") WHERE thread_id is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "documents_thread_client_key" ON "documents" USING btree ("thread_id","external_id") WHERE thread_id is not null and external_id is not null;--> statement-breakpoint
CREATE INDEX "documents_user_occurred_idx" ON "documents" USING btree ("user_id","occurred_at");