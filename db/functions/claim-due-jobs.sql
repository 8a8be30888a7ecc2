-- The job queue's claim (src/queue/queue.ts claimDue): up to max_jobs due jobs — queued ones whose time has come, and
-- running ones whose worker stopped answering (claimed before stale_before) with attempts left — of `kinds` (every
-- kind when null), oldest first, chosen, locked (SKIP LOCKED: workers never claim the same row) and claimed in one
-- statement.
--
-- Each kind of due job is read in the claim index's order and stops at max_jobs rows: the planner is told to keep it
-- so (no bitmap scan, no full sort) for this function alone, because on PGlite, with no autovacuum, it has no
-- statistics and would otherwise read and sort every queued row per claim — 17–33 ms for a queue of 12,000, paid by
-- every batch of a backlog.
CREATE OR REPLACE FUNCTION claim_due_jobs(worker text, now_at timestamptz, stale_before timestamptz, kinds text[], max_jobs int)
RETURNS SETOF jobs LANGUAGE sql
SET enable_bitmapscan = off
SET enable_sort = off
AS $$
  UPDATE jobs SET status = 'running', locked_at = now_at, locked_by = worker, attempts = attempts + 1, updated_at = now_at
   WHERE id IN (
     WITH queued AS MATERIALIZED (
       SELECT id, run_at FROM jobs
        WHERE status = 'queued' AND run_at <= now_at AND (kinds IS NULL OR kind = ANY (kinds))
        ORDER BY status, run_at, id LIMIT max_jobs FOR UPDATE SKIP LOCKED),
     abandoned AS MATERIALIZED (
       SELECT id, run_at FROM jobs
        WHERE status = 'running' AND locked_at < stale_before AND attempts < max_attempts AND (kinds IS NULL OR kind = ANY (kinds))
        ORDER BY status, run_at, id LIMIT max_jobs FOR UPDATE SKIP LOCKED)
     SELECT id FROM (SELECT * FROM queued UNION ALL SELECT * FROM abandoned) due ORDER BY run_at, id LIMIT max_jobs)
  RETURNING *
$$;
