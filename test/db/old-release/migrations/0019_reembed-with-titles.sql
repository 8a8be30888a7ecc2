-- A model whose vectors carry meaning (local, OpenAI-compatible) now embeds each chunk after its document's
-- title (src/retrieval/embedding-text.ts). Their vectors made before are dropped with their model label, so the
-- boot's background re-embedding recomputes them once (documents say index_status "pending" meanwhile; semantic
-- ranking leaves them out, as any stale vector). The hash embedder's vectors are unchanged.
UPDATE "chunks" SET "embedding" = NULL, "embedding_model" = NULL WHERE "embedding_model" LIKE 'local:%' OR "embedding_model" LIKE 'openai:%';
