-- storage_totals (documents and bytes per user, every status) starts from the documents there are; the triggers that
-- keep it exact from then on are db/functions/storage-totals.sql. Every SQL function and trigger is defined once, in db/functions/, and applied after the migrations (db/migrate.ts).
INSERT INTO storage_totals (user_id, documents, bytes)
SELECT user_id, count(*), coalesce(sum(size_bytes), 0) FROM documents GROUP BY user_id
ON CONFLICT (user_id) DO NOTHING;
