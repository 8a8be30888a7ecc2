// A document's semantic neighbours for link suggestions: the documents of its workspace whose best chunk-to-chunk
// cosine with any of its chunks reaches the embedder's link threshold, best first, at most `limit`. Asked of the
// user's in-memory vector copy (the index semantic search uses: its int8 scan, exact rescoring) even while an
// embedding backlog keeps it stale: the vectors this process embedded since the copy's load began are ranked beside
// it (vector-memory-recent.ts), and the few documents found are checked in SQL (still active, in the workspace,
// embedded), so a document deleted, archived, moved or edited since the load is never suggested. So a job's work
// is an in-memory scan and two indexed reads, whatever the corpus size — never a scan of the corpus in SQL, which
// holds the one PGlite connection (the API's thread) for seconds. The SQL ranking remains for a user whose copy
// cannot be held (over the memory budget, copies off), over keyword candidates when the user is large.
import { and, eq, inArray, sql } from 'drizzle-orm'
import { queryRows } from '../../db/client'
import { documents } from '../../db/schema'
import type { Deps } from '../deps'
import { chunkVectors } from './chunk-vectors'
import { rankDocuments } from './vector-memory-rank'

type Doc = typeof documents.$inferSelect
export interface Neighbour {
  document_id: string
  score: number
}

export const sameWorkspace = (doc: Doc) =>
  sql`d.user_id = ${doc.user_id} and d.workspace_id = ${doc.workspace_id} and d.status = 'active' and d.id <> ${doc.id}`

const better = (a: Neighbour, b: Neighbour) => b.score - a.score || (a.document_id < b.document_id ? -1 : 1)

/** Null when no copy can answer for this user (copies off, over budget, or vectors of another dimension). */
export async function neighboursInMemory(
  deps: Deps,
  doc: Doc,
  model: string,
  threshold: number,
  limit: number,
): Promise<Neighbour[] | null> {
  const view = await deps.vectorMemory.forLinks(deps.db, doc.user_id, model)
  if (!view) return null
  const { copy, recent } = view
  const own = await chunkVectors(deps.db, doc.user_id, doc.id, model)
  if (own.some((v) => v.length !== copy.dim)) return null // another dimension: SQL raises, as search's would
  const fromRecent = recent.neighbours(own, doc.workspace_id, doc.id, threshold)
  // The copy's best, then checked: some may be gone since it loaded. Asked for more until `limit` survive the
  // check among those at least as near as the copy's last candidate, or the copy has no more.
  for (let k = Math.max(limit * 2, 10); ; k *= 4) {
    const ranked = rankDocuments(copy, own, { workspaceId: doc.workspace_id, excludeDocument: doc.id }, k, {
      boost: false,
      atLeast: threshold,
      skip: recent.documents, // their vectors in the copy are older than the ones noted
    })
    const candidates = [...ranked.map((r) => ({ document_id: copy.ids[r.d]!, score: r.similarity })), ...fromRecent].sort(better)
    const live = await stillLinkable(deps, doc, candidates)
    const kept = candidates.filter((c) => live.has(c.document_id))
    if (ranked.length < k) return kept.slice(0, limit)
    const surely = kept.filter((c) => c.score >= ranked.at(-1)!.similarity)
    if (surely.length >= limit) return surely.slice(0, limit)
  }
}

/** Of these documents, those that may be linked to `doc` now: the user's, active, in its workspace, embedded. */
async function stillLinkable(deps: Deps, doc: Doc, candidates: Neighbour[]): Promise<Set<string>> {
  if (!candidates.length) return new Set()
  const rows = await deps.db
    .select({ id: documents.id })
    .from(documents)
    .where(
      and(
        inArray(
          documents.id,
          candidates.map((c) => c.document_id),
        ),
        eq(documents.user_id, doc.user_id),
        eq(documents.workspace_id, doc.workspace_id),
        eq(documents.status, 'active'),
        eq(documents.index_status, 'indexed'),
      ),
    )
  return new Set(rows.map((r) => r.id))
}

/** The same ranking in SQL, over `candidates` only or (null) every document of the workspace. */
export async function neighboursInSql(
  deps: Deps,
  doc: Doc,
  model: string,
  threshold: number,
  limit: number,
  candidates: string[] | null,
): Promise<Neighbour[]> {
  if (candidates?.length === 0) return []
  const among = candidates
    ? sql`o.document_id in (select (jsonb_array_elements_text(${JSON.stringify(candidates)}::jsonb))::uuid)`
    : sql`o.user_id = ${doc.user_id}`
  const rows = await queryRows<Neighbour>(
    deps.db,
    // Materialized: the document's few chunks and the others' are each read once, by index, and compared pair by
    // pair. Joined freely, with no statistics yet (a fresh corpus), the planner took every document × every chunk ×
    // the document's chunks in nested loops: seconds per job at 400 documents, all of it holding the connection.
    // Chunks with no vector are left out, and so is a NaN cosine (a zero vector stored before they were
    // refused): PostgreSQL's max() and >= rank NaN above every number, so one would win every pair.
    sql`with mine as materialized (
          select embedding from chunks where document_id = ${doc.id} and embedding_model = ${model} and embedding is not null),
        theirs as materialized (
          select o.document_id, o.embedding from chunks o join documents d on d.id = o.document_id
          where ${among} and o.embedding_model = ${model} and o.embedding is not null and ${sameWorkspace(doc)})
        select t.document_id, max(s.similarity) as score
        from theirs t cross join mine m cross join lateral (select (1 - (t.embedding <=> m.embedding))::float8 as similarity) s
        where s.similarity <> 'NaN'::float8
        group by t.document_id
        having max(s.similarity) >= ${threshold}
        order by score desc, t.document_id
        limit ${limit}`,
  )
  return rows.map((r) => ({ document_id: r.document_id, score: Number(r.score) }))
}
