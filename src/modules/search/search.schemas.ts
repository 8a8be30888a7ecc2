// Request and response schemas of GET /api/search.
import { t } from 'elysia'
import { Uuid } from '../../http/schemas'
import { DocumentSummary, KindSchema, literals, SourceSchema } from '../documents/documents.schemas'

export const SearchQuery = t.Object({
  q: t.String({ maxLength: 2000, description: 'Free text; anything is accepted (it is cleansed, never parsed as syntax)' }),
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 10, error: 'limit must be an integer from 1 to 100' })),
  workspace_id: t.Optional(Uuid()),
  kind: t.Optional(KindSchema),
  tag: t.Optional(t.String({ maxLength: 64 })),
  source: t.Optional(SourceSchema),
  mode: t.Optional(literals(['hybrid', 'keyword', 'semantic'] as const, 'Defaults to the settings search_mode (hybrid)')),
})

export const SearchResult = t.Object({
  document: DocumentSummary,
  score: t.Number(),
  snippet: t.String({ description: 'A passage of the best-matching chunk' }),
  signals: t.Object({
    keyword_rank: t.Nullable(t.Integer()),
    keyword_score: t.Nullable(t.Number()),
    semantic_rank: t.Nullable(t.Integer()),
    semantic_score: t.Nullable(t.Number()),
    matched_terms: t.Integer({ description: 'Query words the document matched' }),
    boost: t.Number({ description: 'Multiplier from pinned and rating' }),
  }),
})

export const SearchResponse = t.Object(
  {
    query: t.String(),
    mode: t.String({ description: 'The mode that ran: hybrid | keyword | semantic' }),
    matched: t.String({ description: 'all: every result matched every query word; any: OR matches filled the list' }),
    took_ms: t.Number(),
    results: t.Array(SearchResult),
    notice: t.Optional(t.String({ description: 'Why the mode that ran differs from the one asked for' })),
  },
  { title: 'SearchResponse' },
)
