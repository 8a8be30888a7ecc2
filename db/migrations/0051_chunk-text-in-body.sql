-- Chunks keep where their text is in their document's body (code points) instead of a copy of it; chunks written before
-- keep their content (rewriting every chunk of a large data directory here would be one statement of hundreds of MB
-- of log): they lose it when their document is next indexed.
ALTER TABLE "chunks" ALTER COLUMN "content" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "chunks" ADD COLUMN "content_from" integer;--> statement-breakpoint
ALTER TABLE "chunks" ADD COLUMN "content_chars" integer;--> statement-breakpoint
ALTER TABLE "chunks" ADD CONSTRAINT "chunks_text_check" CHECK ("chunks"."content" is not null or ("chunks"."content_from" is not null and "chunks"."content_chars" is not null));