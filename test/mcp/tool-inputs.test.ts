// MCP tool inputs are the routes' own: for every tool whose input is taken from the route it calls, each field
// the route takes is offered (unless the tool fills it in itself) with the route's limits, enums and formats, as
// an MCP client lists it over /mcp. A limit changed on one side only, or a filter the tool lacks, fails here.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { TObject } from '@sinclair/typebox'
import { fieldSchema } from '../../src/mcp/tools/route-input'
import { AskBody } from '../../src/modules/conversations/conversations.schemas'
import { BulkIngestBody, IngestBody } from '../../src/modules/documents/documents.schemas'
import { BatchDraftBody, Learning } from '../../src/modules/memories/memories.schemas'
import { SearchQuery } from '../../src/modules/search/search.schemas'
import { AppendBody, CreateThreadBody, MessageIn, MessagesQuery, ThreadListQuery } from '../../src/modules/threads/threads.schemas'
import { ContextQuery, WorkspaceListQuery } from '../../src/modules/workspaces/workspaces.schemas'
import { httpClient, startMcpServer, type McpTestServer } from './server'

/**
 * Each tool, the query or body schema of the route it calls, the tool's names of fields the route names otherwise,
 * the fields the tool fills in itself, those another entry compares (`apart`), and — for a list the route checks item
 * by item — the tool's field whose items are compared with the item's schema.
 */
const BACKED: { tool: string; route: TObject; rename?: Record<string, string>; fills?: string[]; apart?: string[]; items?: string }[] = [
  { tool: 'search', route: SearchQuery, rename: { q: 'query' } },
  { tool: 'list_workspaces', route: WorkspaceListQuery },
  { tool: 'get_workspace_context', route: ContextQuery },
  { tool: 'list_threads', route: ThreadListQuery },
  { tool: 'read_thread', route: MessagesQuery },
  { tool: 'add_document', route: IngestBody, fills: ['source'] },
  { tool: 'add_documents', route: IngestBody, fills: ['source'], items: 'documents' },
  { tool: 'ask', route: AskBody, fills: ['stream'] },
  { tool: 'save_learnings', route: Learning, items: 'learnings' },
  // POST /api/threads' thread fields (messages are the next entry's); POST /api/threads/{id}/messages takes the messages alone.
  { tool: 'add_messages', route: CreateThreadBody, fills: ['source', 'metadata'], apart: ['messages'] },
  { tool: 'add_messages', route: MessageIn, items: 'messages' },
]

/** The lists a tool takes whose bounds are the route's: tool, field, route. */
const LISTS: [string, string, TObject][] = [
  ['add_documents', 'documents', BulkIngestBody],
  ['save_learnings', 'learnings', BatchDraftBody],
  ['add_messages', 'messages', AppendBody],
]

const LIMITS = ['type', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'format', 'const', 'enum']

/** What bounds a value: its limits, and those of each alternative (an enum's constants, a date or a date-time). */
function limitsOf(schema: Record<string, unknown>): unknown {
  // A format's pattern is the format itself, written out (zod lists the regex it checks a uuid or date with); a uri
  // format beside a pattern of the route's own (http(s) only) is that pattern, the limit a caller meets (zod lists it alone).
  const uri = schema.format === 'uri' && schema.pattern !== undefined
  const keys = uri
    ? LIMITS.filter((key) => key !== 'format')
    : schema.format === undefined
      ? LIMITS
      : LIMITS.filter((key) => key !== 'pattern')
  // A pattern as the expression it is (zod writes `/` as `\/`).
  const as = (key: string) => (key === 'pattern' ? new RegExp(schema[key] as string).source : schema[key])
  const own = Object.fromEntries(keys.flatMap((key) => (schema[key] === undefined ? [] : [[key, as(key)]])))
  const anyOf = schema.anyOf as Record<string, unknown>[] | undefined
  return anyOf ? { ...own, anyOf: anyOf.map(limitsOf) } : own
}

let s: McpTestServer
let tools: Map<string, { properties: Record<string, Record<string, unknown>>; required?: string[]; items?: unknown }>
beforeAll(async () => {
  s = await startMcpServer()
  const client = await httpClient(s.url, (await s.t.signUp()).key)
  const listed = await client.listTools()
  tools = new Map(listed.tools.map((t) => [t.name, t.inputSchema as never]))
  await client.close()
})
afterAll(() => s.stop())

for (const { tool, route, rename = {}, fills = [], apart = [], items } of BACKED) {
  test(`${tool} takes every field of its route${items ? ` in each of its ${items}` : ''}, with the route's limits`, () => {
    const listed = tools.get(tool)!
    expect(listed).toBeDefined()
    const input = items ? (listed.properties[items]!.items as typeof listed) : listed
    const required = new Set(route.required ?? [])
    for (const [field, schema] of Object.entries(route.properties)) {
      if (apart.includes(field)) continue
      if (fills.includes(field)) {
        expect({ field, offered: field in input.properties }).toEqual({ field, offered: false })
        continue
      }
      const name = rename[field] ?? field
      const listed = input.properties[name]
      expect({ field: name, offered: listed !== undefined }).toEqual({ field: name, offered: true })
      expect({ field: name, limits: limitsOf(listed!) }).toEqual({ field: name, limits: limitsOf(fieldSchema(schema as never)) })
      expect({ field: name, required: (input.required ?? []).includes(name) }).toEqual({ field: name, required: required.has(field) })
    }
  })
}

for (const [tool, field, route] of LISTS) {
  test(`${tool}'s ${field} are bounded as the route bounds them`, () => {
    const list = tools.get(tool)!.properties[field]!
    const bounds = route.properties[field] as { minItems?: number; maxItems?: number }
    expect({ minItems: list.minItems, maxItems: list.maxItems }).toEqual({ minItems: bounds.minItems, maxItems: bounds.maxItems })
  })
}

test('the search tool takes a query as long as the route does, and the source filter', () => {
  const search = tools.get('search')!
  expect(search.properties.query!.maxLength).toBe(16_384)
  expect(search.properties.source).toBeDefined()
})
