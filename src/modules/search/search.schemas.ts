// Request and response schemas of GET /api/search.
import { t } from 'elysia'
import { TimeQuery, Uuid, Text } from '../../http/schemas'
import { MAX_QUERY_CHARS } from '../../retrieval/keyword-query'
import { AnyKindSchema, DocumentSummary, literals, Location, MessageContext, SourceSchema } from '../documents/documents.schemas'

/** What q may be at most: HTTP's own limit on a request line. Longer than MAX_QUERY_CHARS is cut, not refused. */
const MAX_ACCEPTED_QUERY_CHARS = 16_384

export const SearchQuery = t.Object({
  q: Text({
    // Over HTTP a request line cannot be much longer (Bun answers 431 past 16 KiB of headers); this bounds in-process callers.
    maxLength: MAX_ACCEPTED_QUERY_CHARS,
    error: `q must be at most ${MAX_ACCEPTED_QUERY_CHARS} characters (queries over ${MAX_QUERY_CHARS} are cut to their first ${MAX_QUERY_CHARS})`,
    description: `Free text; anything is accepted (it is cleansed, never parsed as syntax). Only the first ${MAX_QUERY_CHARS} characters are searched, and the response's notice says so`,
  }),
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 10, error: 'limit must be an integer from 1 to 100' })),
  workspace_id: t.Optional(Uuid()),
  kind: t.Optional(AnyKindSchema),
  tag: t.Optional(Text({ maxLength: 64 })),
  source: t.Optional(SourceSchema),
  mode: t.Optional(literals(['hybrid', 'keyword', 'semantic'] as const, 'Defaults to the settings search_mode (hybrid)')),
  ...TimeQuery,
})

export const SearchResult = t.Object({
  document: DocumentSummary,
  score: t.Number(),
  snippet: t.String({ description: 'A passage of the best-matching chunk' }),
  location: t.Optional(Location),
  context: t.Optional(MessageContext),
  signals: t.Object({
    keyword_rank: t.Nullable(t.Integer()),
    keyword_score: t.Nullable(t.Number()),
    semantic_rank: t.Nullable(t.Integer()),
    semantic_score: t.Nullable(t.Number()),
    matched_terms: t.Integer({
      description: 'Searched query words the document holds (exactly, or the last word as a prefix), whatever ranked it',
    }),
    boost: t.Number({ description: 'Multiplier from pinned and rating' }),
  }),
})

export const SearchResponse = t.Object(
  {
    query: t.String(),
    mode: t.String({ description: 'The mode that ran: hybrid | keyword | semantic' }),
    // UnionEnum (not literals): the OpenAPI document keeps its description; required, so no default either.
    matched: t.UnionEnum(['all', 'any', 'none'], {
      default: undefined,
      description:
        'all: every result holds every searched word; any: some results hold only some of them (OR matches filled the list, ' +
        'or semantic neighbours hold fewer); none: no result holds any searched word (no results, no searchable words, or matched by meaning only)',
    }),
    took_ms: t.Number(),
    results: t.Array(SearchResult),
    notice: t.Optional(
      t.String({
        description:
          'What the search did differently from what was asked, clauses joined by "; ": the mode that ran, a query with no ' +
          'searchable words (empty, punctuation, stop words only), a query cut to length, the rarest words kept of too many',
      }),
    ),
  },
  { title: 'SearchResponse' },
)
