-- keyword_stats (BM25 corpus size and total length per user) starts from the documents there are; the triggers that
-- keep it exact from then on are db/functions/keyword-stats.sql. Every SQL function and trigger is defined once, in db/functions/, and applied after the migrations (db/migrate.ts).
INSERT INTO keyword_stats (user_id, documents, total_len)
SELECT user_id, count(*) FILTER (WHERE keyword_len > 0), coalesce(sum(keyword_len), 0) FROM documents GROUP BY user_id
ON CONFLICT (user_id) DO NOTHING;
