-- Each listed term's tf beside it (document_terms.tfs, in the order of terms), so a cached index catching up reads a
-- changed document's postings from its one row (db/functions/index-changes-since.sql) instead of one probe of the
-- postings' key a term. Existing rows take their tfs from the postings, by the same keys.
ALTER TABLE "document_terms" ADD COLUMN "tfs" real[];--> statement-breakpoint
UPDATE "document_terms" t SET "tfs" = (
  SELECT coalesce(array_agg(p.tf ORDER BY u.n), '{}')
    FROM unnest(t.terms) WITH ORDINALITY AS u(term, n)
    JOIN postings p ON p.user_id = t.user_id AND p.term = u.term COLLATE "C" AND p.document_id = t.document_id);--> statement-breakpoint
ALTER TABLE "document_terms" ALTER COLUMN "tfs" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "document_terms" ALTER COLUMN "tfs" SET STATISTICS 0;
