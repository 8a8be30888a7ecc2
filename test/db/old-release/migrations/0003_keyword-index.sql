CREATE TABLE "postings" (
	"user_id" uuid NOT NULL,
	"term" text collate "C" NOT NULL,
	"document_id" uuid NOT NULL,
	"tf" real NOT NULL,
	CONSTRAINT "postings_user_id_term_document_id_pk" PRIMARY KEY("user_id","term","document_id")
);
--> statement-breakpoint
ALTER TABLE "documents" ADD COLUMN "keyword_len" real DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "postings" ADD CONSTRAINT "postings_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "postings" ADD CONSTRAINT "postings_document_id_documents_id_fk" FOREIGN KEY ("document_id") REFERENCES "public"."documents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "postings_document_idx" ON "postings" USING btree ("document_id");