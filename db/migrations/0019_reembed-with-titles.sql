-- A model whose vectors carry meaning (local, OpenAI-compatible) now embeds each chunk after its document's
-- title (src/retrieval/embedding-text.ts). Their vectors made before are dropped with their model label, so the
-- boot's background re-embedding recomputes them once (documents say index_status "pending" meanwhile; semantic
-- ranking leaves them out, as any stale vector). The hash embedder's vectors are unchanged.
-- Their owners' embedding_version moves here, as the chunks' trigger (now db/functions/chunk-vectors.sql) would move it:
-- the functions are applied after the migrations, so a data directory upgraded from before 0017 has no trigger yet
-- (one from 0017 or 0018 has, and moves it once more: a version only has to move).
WITH cleared AS (
  UPDATE "chunks" SET "embedding" = NULL, "embedding_model" = NULL WHERE "embedding_model" LIKE 'local:%' OR "embedding_model" LIKE 'openai:%'
  RETURNING "user_id")
INSERT INTO keyword_stats AS s (user_id, embedding_version) SELECT DISTINCT user_id, 1 FROM cleared
ON CONFLICT (user_id) DO UPDATE SET embedding_version = s.embedding_version + 1;
