-- The keyword trigger fires only for writes that change what ranking reads — a document's terms (keyword_len,
-- which every re-index sets), its status, workspace, kind, source, tags, pin or rating — and for inserts and
-- deletes. An embedding job marking a document indexed no longer moves keyword_stats.version, so in-memory
-- copies of the keyword index stay current while embeddings catch up.
DROP TRIGGER documents_keyword_stats ON documents;
--> statement-breakpoint
CREATE TRIGGER documents_keyword_stats
AFTER INSERT OR DELETE OR UPDATE OF keyword_len, status, workspace_id, kind, source, tags, pinned, rating, user_id ON documents
FOR EACH ROW EXECUTE FUNCTION keyword_stats_track();
