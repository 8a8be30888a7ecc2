// Search over the caller's active documents: BM25 keyword ranking (semantic and hybrid arrive with
// embeddings), filters applied inside the query, pinned and rating as mild boosts, best-chunk snippets.
import { and, inArray, sql, type SQL } from 'drizzle-orm'
import { documents } from '../../../db/schema'
import type { Deps } from '../../deps'
import { analyzeQuery, keywordSearch, snippets } from '../../retrieval/keyword'
import type { SessionUser } from '../auth/sessions.service'
import { toSummaryDto } from '../documents/documents.model'
import { findWorkspace } from '../workspaces/workspaces.service'

export interface SearchInput {
  q: string
  limit?: number
  workspace_id?: string
  kind?: string
  tag?: string
  source?: string
  mode?: 'hybrid' | 'keyword' | 'semantic'
}

/** The filters every ranking applies inside its own query, on the documents table aliased `d`. */
function documentFilter(userId: string, input: SearchInput): SQL {
  const parts: SQL[] = [sql`d.user_id = ${userId}`, sql`d.status = 'active'`]
  if (input.workspace_id) parts.push(sql`d.workspace_id = ${input.workspace_id}`)
  if (input.kind) parts.push(sql`d.kind = ${input.kind}`)
  if (input.source) parts.push(sql`d.source = ${input.source}`)
  if (input.tag) parts.push(sql`d.tags @> array[${input.tag}]::text[]`)
  return sql.join(parts, sql` and `)
}

export async function searchDocuments(deps: Deps, user: SessionUser, input: SearchInput) {
  const started = performance.now()
  const limit = input.limit ?? 10
  if (input.workspace_id) await findWorkspace(deps.db, user.id, input.workspace_id)
  const asked = input.mode ?? 'hybrid'
  const terms = await analyzeQuery(deps.db, input.q)
  const { hits, words } = await keywordSearch(deps.db, user.id, terms, documentFilter(user.id, input), limit)
  const ids = hits.map((h) => h.document_id)
  const [rows, passages] = await Promise.all([
    ids.length ? deps.db.select().from(documents).where(and(inArray(documents.id, ids))) : Promise.resolve([]),
    snippets(deps.db, user.id, ids, terms),
  ])
  const byId = new Map(rows.map((r) => [r.id, r]))
  // Hits come ranked: AND matches first, then by boosted score.
  const results = hits.map((hit, i) => {
    const row = byId.get(hit.document_id)!
    return {
      document: toSummaryDto(row),
      score: hit.score * hit.boost,
      snippet: passages.get(hit.document_id) ?? row.excerpt,
      signals: { keyword_rank: i + 1, keyword_score: hit.score, semantic_rank: null, semantic_score: null, matched_terms: hit.matched_terms, boost: hit.boost },
    }
  })
  return {
    query: input.q,
    mode: 'keyword',
    matched: hits.every((h) => h.matched_terms === words) ? 'all' : 'any',
    took_ms: Math.round((performance.now() - started) * 100) / 100,
    results,
    ...(asked !== 'keyword' ? { notice: `${asked} search needs an embedding model and none is available; searched by keyword` } : {}),
  }
}
