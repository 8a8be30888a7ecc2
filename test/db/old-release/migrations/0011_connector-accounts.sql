DROP INDEX "documents_external_idx";--> statement-breakpoint
ALTER TABLE "connections" ADD COLUMN "meta" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "documents_external_key" ON "documents" USING btree ("source_ref","external_id") WHERE external_id is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "connections_account_key" ON "connections" USING btree ("user_id","provider","external_account_id");