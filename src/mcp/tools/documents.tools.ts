// MCP tools over documents: search (GET /api/search), get_document (GET /api/documents/:id), add_document
// (POST /api/documents, source "mcp") and add_documents (POST /api/documents/bulk), where a memory kind becomes a
// draft a person approves.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import type { Logger } from '../../log'
import { BulkIngestBody, IngestBody } from '../../modules/documents/documents.schemas'
import { SearchQuery } from '../../modules/search/search.schemas'
import { callJson, toolHandler, withQuery, type ApiCaller } from '../mcp.tool'
import { routeInput, routeList } from './route-input'
import { ADDITIVE, documentRef, DocumentRef, Id, READ_ONLY, type ApiDocument } from './tool.schemas'

interface ApiSearch {
  query: string
  mode: string
  matched: string
  notice?: string
  results: {
    document: ApiDocument & { occurred_at: string; speaker: string | null }
    score: number
    snippet: string
    context?: { before: Neighbour[]; after: Neighbour[] }
  }[]
}

const Neighbour = z.object({ id: z.string(), speaker: z.string().nullable(), occurred_at: z.string(), excerpt: z.string() })
type Neighbour = z.infer<typeof Neighbour>

/** add_document's input, and each of add_documents' items: POST /api/documents' fields but `source` (the tool's: mcp). */
const AddInput = routeInput(
  IngestBody,
  ['body', 'title', 'workspace_id', 'url', 'tags', 'kind', 'excerpt', 'pinned', 'source_ref', 'metadata', 'occurred_at'],
  {
    describe: {
      body: 'The text (at most 1 MiB)',
      title: 'Default: the first line of the body',
      kind: 'Default document (webpage with a url); a memory kind becomes a draft pending approval',
      excerpt: 'A short summary (default: the start of the body)',
      pinned: 'Pinned items lead the workspace context',
      source_ref: 'Your reference of where it comes from (an id or path in your system), kept with it',
    },
  },
)

interface ApiBulk {
  results: (
    | { status: number; document: ApiDocument & { deduplicated: boolean; notice?: string } }
    | { status: number; error: string; code: string }
  )[]
  created: number
  deduplicated: number
  failed: number
}

export function registerDocumentTools(server: McpServer, api: ApiCaller | null, log?: Logger) {
  server.registerTool(
    'search',
    {
      title: 'Search documents and memories',
      description:
        'Hybrid keyword + semantic search over your documents and memories. Returns the best matches with a snippet each; ' +
        'read one in full with get_document. after and before keep only what happened in that window.',
      inputSchema: routeInput(SearchQuery, ['query', 'limit', 'workspace_id', 'kind', 'tag', 'source', 'mode', 'after', 'before'], {
        rename: { query: 'q' },
        describe: {
          limit: 'How many results (default 10)',
          workspace_id: 'Only this workspace (default: all of yours)',
          tag: 'Only documents with this tag',
          source: 'Only what came in this way: api, extension, connector, agent or mcp',
        },
      }),
      outputSchema: {
        query: z.string(),
        mode: z.string().describe('The mode that ran'),
        matched: z
          .string()
          .describe(
            'all: every result holds every word; any: some hold only some; none: no result holds any (matched by meaning only, or no searchable words)',
          ),
        notice: z.string().optional(),
        results: z.array(
          z.object({
            ...DocumentRef,
            occurred_at: z.string().describe('When it happened (a message: when it was said)'),
            speaker: z.string().nullable().describe("Who said it, when it is a thread's message"),
            snippet: z.string(),
            score: z.number(),
            context: z
              .object({ before: z.array(Neighbour), after: z.array(Neighbour) })
              .optional()
              .describe("A thread's message: the messages said just before and after it"),
          }),
        ),
      },
      annotations: READ_ONLY,
    },
    toolHandler('search', api, log, async (api, { query, ...filters }, signal) => {
      const found = await callJson<ApiSearch>(api, 'GET', withQuery('/api/search', { q: query, ...filters }), undefined, signal)
      return {
        query: found.query,
        mode: found.mode,
        matched: found.matched,
        ...(found.notice ? { notice: found.notice } : {}),
        results: found.results.map((r) => ({
          ...documentRef(r.document),
          occurred_at: r.document.occurred_at,
          speaker: r.document.speaker,
          snippet: r.snippet,
          score: r.score,
          ...(r.context ? { context: r.context } : {}),
        })),
      }
    }),
  )

  server.registerTool(
    'get_document',
    {
      title: 'Read a document',
      description: 'One document or memory in full: its body, tags, source and metadata.',
      inputSchema: { id: Id('The document id (from search or get_workspace_context)') },
      outputSchema: {
        ...DocumentRef,
        source: z.string(),
        body: z.string(),
        metadata: z.record(z.string(), z.unknown()),
        created_at: z.string(),
        updated_at: z.string(),
      },
      annotations: READ_ONLY,
    },
    toolHandler('get_document', api, log, async (api, { id }, signal) => {
      const d = await callJson<ApiDocument>(api, 'GET', `/api/documents/${encodeURIComponent(id)}`, undefined, signal)
      const { source, body, metadata, created_at, updated_at } = d
      return { ...documentRef(d), source, body, metadata, created_at, updated_at }
    }),
  )

  server.registerTool(
    'add_document',
    {
      title: 'Add a document',
      description:
        'Store a document or note, searchable right away. Saving the same URL, or the same text under the same title, again in a ' +
        'workspace updates the existing document instead of making a copy. A memory kind (fact, preference, decision, routine, ' +
        'lesson) is never stored active from here: it becomes a draft pending approval (status pending_approval) that appears as ' +
        'a memory only once a person approves it, and a change to an existing memory becomes a draft that replaces it when ' +
        'approved. To propose several learnings at once, use save_learnings.',
      inputSchema: AddInput,
      outputSchema: {
        ...DocumentRef,
        deduplicated: z.boolean().describe('true: an existing document (or pending draft) was updated'),
        notice: z.string().optional().describe('Present when it became a draft awaiting approval'),
      },
      annotations: ADDITIVE(true),
    },
    toolHandler('add_document', api, log, async (api, input, signal) => {
      const d = await callJson<ApiDocument & { deduplicated: boolean; notice?: string }>(
        api,
        'POST',
        '/api/documents',
        { ...input, source: 'mcp' },
        signal,
      )
      return { ...documentRef(d), deduplicated: d.deduplicated, ...(d.notice ? { notice: d.notice } : {}) }
    }),
  )
  server.registerTool(
    'add_documents',
    {
      title: 'Add many documents',
      description:
        'Store up to 1,000 documents in one call, each exactly as add_document would (the same deduplication, and a memory kind ' +
        'becomes a draft pending approval). Answers one result per document, in order: the document, or why that one was refused ' +
        '(the others are stored all the same). A batch that would pass a limit of your plan is refused whole, nothing stored.',
      inputSchema: { documents: routeList(BulkIngestBody, 'documents', z.object(AddInput), 'The documents, in order') },
      outputSchema: {
        created: z.number().int(),
        deduplicated: z.number().int(),
        failed: z.number().int(),
        results: z.array(
          z.object({
            status: z.number().int().describe('201 stored, 200 an existing document updated, 4xx refused'),
            document: z.object({ ...DocumentRef, deduplicated: z.boolean(), notice: z.string().optional() }).optional(),
            error: z.string().optional(),
            code: z.string().optional().describe('The error code of a refused item (README "Error codes")'),
          }),
        ),
      },
      annotations: ADDITIVE(true),
    },
    toolHandler('add_documents', api, log, async (api, { documents }, signal) => {
      const done = await callJson<ApiBulk>(
        api,
        'POST',
        '/api/documents/bulk',
        { documents: documents.map((d) => ({ ...d, source: 'mcp' })) },
        signal,
      )
      return {
        created: done.created,
        deduplicated: done.deduplicated,
        failed: done.failed,
        results: done.results.map((r) =>
          'error' in r
            ? { status: r.status, error: r.error, code: r.code }
            : {
                status: r.status,
                document: {
                  ...documentRef(r.document),
                  deduplicated: r.document.deduplicated,
                  ...(r.document.notice ? { notice: r.document.notice } : {}),
                },
              },
        ),
      }
    }),
  )
}
