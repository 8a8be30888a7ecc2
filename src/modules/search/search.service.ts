// Search over the caller's active documents: BM25 keyword ranking, semantic ranking over chunk embeddings,
// or both fused (hybrid); filters applied inside each query, pinned and rating as mild boosts, and a
// snippet from the best-matching chunk. Without an embedding model every mode runs by keyword and says so.
import { eq, getTableColumns, inArray } from 'drizzle-orm'
import { chunks, documents } from '../../../db/schema'
import { embedQuery } from '../../embedding/embeddings'
import type { Deps } from '../../deps'
import { fromKeyword, fromSemantic, fuse, type RankedHit } from '../../retrieval/fusion'
import { chunkVectors } from '../../retrieval/chunk-vectors'
import { chunkText } from '../../retrieval/chunk-text'
import { filterSql, type DocumentFilter, type TimeRange } from '../../retrieval/document-fields'
import { countUnembedded, unembeddedNotice } from '../../embedding/embedding-backlog'
import { refinedQuery } from '../../retrieval/feedback'
import { locationField } from '../../retrieval/file-locations'
import { analyzeSearchQuery, keywordSearch, matchedWords, type Passage, snippets, type KeywordHit } from '../../retrieval/keyword'
import { messageNeighbours } from '../../retrieval/message-neighbours'
import { semanticSearch } from '../../retrieval/semantic'
import type { SessionUser } from '../auth/sessions.service'
import { toSummaryDto } from '../documents/documents.model'
import { findWorkspace } from '../workspaces/workspaces.service'
import { matchedOf, searchNotices } from './search.report'

export interface SearchInput {
  q: string
  limit?: number
  workspace_id?: string
  kind?: string
  tag?: string
  source?: string
  mode?: 'hybrid' | 'keyword' | 'semantic'
  /** Only documents that happened (occurred_at) in [after, before). */
  time?: TimeRange
}

// Results show summaries: never read bodies (up to 1 MiB each) to answer a search.
const { body: _body, metadata: _metadata, ...summaryColumns } = getTableColumns(documents)

/**
 * Candidates each side brings to hybrid fusion, whatever the page size: fusion normalises over the candidates,
 * so a pool that grew with `limit` would rank the first ten differently at limit 10 and at limit 100.
 */
const FUSION_POOL = 100

/** The filter every ranking applies inside its own ranking, cached index or SQL (an empty string filters nothing). */
function documentFilter(input: SearchInput): DocumentFilter {
  const { workspace_id, kind, source, tag } = input
  return {
    workspaceId: workspace_id || undefined,
    kind: kind || undefined,
    source: source || undefined,
    tag: tag || undefined,
    ...input.time,
  }
}

export async function searchDocuments(deps: Deps, user: SessionUser, input: SearchInput) {
  const started = performance.now()
  const limit = input.limit ?? 10
  if (input.workspace_id) await findWorkspace(deps.db, user.id, input.workspace_id)
  const asked = input.mode ?? 'hybrid'
  const embedder = deps.embedder
  const mode = embedder ? asked : 'keyword'
  const filter = documentFilter(input)
  const query = await analyzeSearchQuery(deps.db, input.q, user.id)

  // Semantic side first: if the embedding endpoint fails now, search must not fail with it — it runs by keyword.
  // A query with no letters or digits is not embedded: it means nothing, and some embedders make it a zero vector.
  let semantic: Awaited<ReturnType<typeof semanticSearch>> = { hits: [] }
  let failure: string | null = null
  let vector: number[] | null = null
  const semanticBy = (v: number[]) =>
    semanticSearch(deps.db, user.id, embedder!.id, v, filter, mode === 'hybrid' ? FUSION_POOL : limit, deps.vectorCache)
  if (mode !== 'keyword' && embedder && query.hasWords) {
    vector = await embedQuery(embedder, query.text).catch((error: Error) => ((failure = error.message), null))
    if (vector) semantic = await semanticBy(vector)
  }
  const ran = failure ? 'keyword' : mode
  const { terms } = query
  // Documents not embedded by the loaded model yet are invisible to semantic ranking: say how many.
  const unembedded = ran === 'keyword' ? undefined : unembeddedNotice(await countUnembedded(deps.db, user.id, filterSql(user.id, filter)))
  const keyword: { hits: KeywordHit[]; notice?: string } =
    ran === 'semantic'
      ? { hits: [] }
      : await keywordSearch(deps.db, user.id, terms, filter, ran === 'hybrid' ? FUSION_POOL : limit, deps.keywordCache)
  let ranked: RankedHit[] =
    ran === 'keyword'
      ? fromKeyword(keyword.hits)
      : ran === 'semantic'
        ? fromSemantic(semantic.hits)
        : fuse(fromKeyword(keyword.hits), fromSemantic(semantic.hits), embedder!.fusionWeight)
  // Hybrid feedback (retrieval/feedback.ts): a second semantic pass from the query moved toward the first result.
  if (ran === 'hybrid' && vector && embedder!.feedbackWeight > 0 && ranked[0]) {
    const refined = refinedQuery(
      vector,
      await chunkVectors(deps.db, user.id, ranked[0].document_id, embedder!.id),
      embedder!.feedbackWeight,
    )
    if (refined) ranked = fuse(fromKeyword(keyword.hits), fromSemantic((await semanticBy(refined)).hits), embedder!.fusionWeight)
  }
  ranked = ranked.slice(0, limit)

  const ids = ranked.map((h) => h.document_id)
  const byMeaning = ranked.filter((h) => h.keyword_rank === null)
  const [rows, passages, semanticPassages, wordsOf] = await Promise.all([
    ids.length ? deps.db.select(summaryColumns).from(documents).where(inArray(documents.id, ids)) : Promise.resolve([]),
    snippets(
      deps.db,
      user.id,
      ranked.filter((h) => h.keyword_rank !== null).map((h) => h.document_id),
      terms,
    ),
    chunkPassages(
      deps,
      byMeaning.filter((h) => h.chunk_id).map((h) => h.chunk_id!),
    ),
    // Results semantic search brought hold query words too, or none: say which, as for keyword results.
    matchedWords(
      deps.db,
      user.id,
      terms,
      byMeaning.map((h) => h.document_id),
    ),
  ])
  const byId = new Map(rows.map((r) => [r.id, r]))
  // A message is shown with the messages said around it: one query for the page's messages.
  const contexts = await messageNeighbours(
    deps.db,
    user.id,
    rows.filter((r) => r.thread_id !== null).map((r) => r.id),
  )
  // The passage shown: the best keyword chunk's, else the chunk semantic search matched.
  const passage = (h: RankedHit) => passages.get(h.document_id) ?? (h.chunk_id ? semanticPassages.get(h.chunk_id) : undefined)
  const matchedTerms = (h: RankedHit) => (h.keyword_rank === null ? (wordsOf.get(h.document_id) ?? 0) : h.matched_terms)
  const notices = [
    ...searchNotices({ asked, offered: mode, ran, unavailable: deps.embeddingStatus.reason, failure, query }),
    ...(unembedded ? [unembedded] : []),
    ...(keyword.notice ? [keyword.notice] : []),
    ...(semantic.notice ? [semantic.notice] : []),
  ]
  return {
    query: input.q,
    mode: ran,
    matched: matchedOf(ranked.map(matchedTerms), query.words),
    took_ms: Math.round((performance.now() - started) * 100) / 100,
    results: ranked.map((h) => {
      const row = byId.get(h.document_id)!
      return {
        document: toSummaryDto(row),
        score: h.score,
        snippet: passage(h)?.text ?? row.excerpt,
        ...(contexts.has(h.document_id) ? { context: contexts.get(h.document_id)! } : {}),
        ...locationField(passage(h)?.location),
        signals: {
          keyword_rank: h.keyword_rank,
          keyword_score: h.keyword_score,
          semantic_rank: h.semantic_rank,
          semantic_score: h.semantic_score,
          matched_terms: matchedTerms(h),
          boost: h.boost,
        },
      }
    }),
    ...(notices.length ? { notice: notices.join('; ') } : {}),
  }
}

/** The opening of the chunks semantic search matched best. */
async function chunkPassages(deps: Deps, chunkIds: string[]): Promise<Map<string, Passage>> {
  if (chunkIds.length === 0) return new Map()
  const rows = await deps.db
    .select({ id: chunks.id, content: chunkText, location: chunks.location })
    .from(chunks)
    .innerJoin(documents, eq(documents.id, chunks.document_id))
    .where(inArray(chunks.id, chunkIds))
  return new Map(rows.map((r) => [r.id, { text: r.content.replace(/\s+/g, ' ').trim().slice(0, 280), location: r.location }]))
}
