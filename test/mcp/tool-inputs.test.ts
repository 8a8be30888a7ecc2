// MCP tool inputs are the routes' own: for every tool whose input is taken from the route it calls, each field
// the route takes is offered (unless the tool fills it in itself) with the route's limits, enums and formats, as
// an MCP client lists it over /mcp. A limit changed on one side only, or a filter the tool lacks, fails here.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { TObject } from '@sinclair/typebox'
import { fieldSchema } from '../../src/mcp/tools/route-input'
import { SearchQuery } from '../../src/modules/search/search.schemas'
import { MessagesQuery, ThreadListQuery } from '../../src/modules/threads/threads.schemas'
import { ContextQuery, WorkspaceListQuery } from '../../src/modules/workspaces/workspaces.schemas'
import { httpClient, startMcpServer, type McpTestServer } from './server'

/** Each tool, the query schema of the route it calls, and the tool's names of fields the route names otherwise. */
const BACKED: { tool: string; route: TObject; rename?: Record<string, string> }[] = [
  { tool: 'search', route: SearchQuery, rename: { q: 'query' } },
  { tool: 'list_workspaces', route: WorkspaceListQuery },
  { tool: 'get_workspace_context', route: ContextQuery },
  { tool: 'list_threads', route: ThreadListQuery },
  { tool: 'read_thread', route: MessagesQuery },
]

const LIMITS = ['type', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'format', 'const', 'enum']

/** What bounds a value: its limits, and those of each alternative (an enum's constants, a date or a date-time). */
function limitsOf(schema: Record<string, unknown>): unknown {
  // A format's pattern is the format itself, written out (zod lists the regex it checks a uuid or date with).
  const keys = schema.format === undefined ? LIMITS : LIMITS.filter((key) => key !== 'pattern')
  const own = Object.fromEntries(keys.flatMap((key) => (schema[key] === undefined ? [] : [[key, schema[key]]])))
  const anyOf = schema.anyOf as Record<string, unknown>[] | undefined
  return anyOf ? { ...own, anyOf: anyOf.map(limitsOf) } : own
}

let s: McpTestServer
let tools: Map<string, { properties: Record<string, Record<string, unknown>>; required?: string[] }>
beforeAll(async () => {
  s = await startMcpServer()
  const client = await httpClient(s.url, (await s.t.signUp()).key)
  const listed = await client.listTools()
  tools = new Map(listed.tools.map((t) => [t.name, t.inputSchema as never]))
  await client.close()
})
afterAll(() => s.stop())

for (const { tool, route, rename = {} } of BACKED) {
  test(`${tool} takes every field of its route, with the route's limits`, () => {
    const input = tools.get(tool)!
    expect(input).toBeDefined()
    const required = new Set(route.required ?? [])
    for (const [field, schema] of Object.entries(route.properties)) {
      const name = rename[field] ?? field
      const listed = input.properties[name]
      expect({ field: name, offered: listed !== undefined }).toEqual({ field: name, offered: true })
      expect({ field: name, limits: limitsOf(listed!) }).toEqual({ field: name, limits: limitsOf(fieldSchema(schema as never)) })
      expect({ field: name, required: (input.required ?? []).includes(name) }).toEqual({ field: name, required: required.has(field) })
    }
  })
}

test('the search tool takes a query as long as the route does, and the source filter', () => {
  const search = tools.get('search')!
  expect(search.properties.query!.maxLength).toBe(16_384)
  expect(search.properties.source).toBeDefined()
})
