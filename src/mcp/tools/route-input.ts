// A tool's input taken from the TypeBox schema of the route it calls, so its limits, enums, filters and
// descriptions are the route's own and cannot drift (test/mcp/tool-inputs.test.ts compares every such tool).
import type { Static, TObject } from '@sinclair/typebox'
import { z } from 'zod'

type Json = Record<string, unknown>

/**
 * One route field as plain JSON Schema: without Elysia's `error` messages, and with a query field's string
 * branch (Elysia accepts "20" for an integer in a URL) left out, since a tool's caller sends JSON numbers.
 */
export function fieldSchema(schema: Json): Json {
  const { error: _, ...rest } = schema
  const branches = rest.anyOf as Json[] | undefined
  if (branches?.some((b) => b.type === 'string' && (b.format === 'integer' || b.format === 'numeric'))) {
    const typed = branches.find((b) => b.type !== 'string')!
    return fieldSchema({ ...typed, ...(rest.default !== undefined ? { default: rest.default } : {}) })
  }
  const clean = (value: unknown): unknown =>
    Array.isArray(value) ? value.map(clean) : value && typeof value === 'object' ? fieldSchema(value as Json) : value
  return Object.fromEntries(
    Object.entries(rest).map(([key, value]) => [key, key === 'properties' ? mapValues(value as Json) : clean(value)]),
  )
}

const mapValues = (properties: Json) => Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, fieldSchema(v as Json)]))

/** The descriptions of a paged list's fields, which its routes leave undescribed. */
export const PAGE = { limit: 'Page size (default 20)', cursor: 'next_cursor of the previous page' }

export interface FromRoute {
  /** The tool's name of a field the route names otherwise: `{ query: 'q' }`. */
  rename?: Record<string, string>
  /** A description for a field the route leaves undescribed. */
  describe?: Record<string, string>
}

/** What a query field holds once validated: a field a tool names otherwise than its route is a query's. */
export type QueryValue = string | number | undefined

/** What the tool's field `F` holds once validated: the route's value of it. */
type RouteValue<T extends TObject, F extends string> = F extends keyof Static<T> ? Static<T>[F] : QueryValue

/** The zod shape of the tool's `fields`, each the route's field of that name (or of its `rename`). */
export function routeInput<T extends TObject, K extends string>(
  route: T,
  fields: K[],
  options: FromRoute = {},
): { [F in K]: z.ZodType<RouteValue<T, F>> } {
  const required = new Set(route.required ?? [])
  return Object.fromEntries(
    fields.map((field) => {
      const name = options.rename?.[field] ?? field
      const source = route.properties[name]
      if (!source) throw new Error(`route schema has no field ${name}`)
      const json = fieldSchema(JSON.parse(JSON.stringify(source)) as Json)
      if (json.description === undefined && options.describe?.[field]) json.description = options.describe[field]
      const plain = z.fromJSONSchema(json as never)
      // The route's own message for a value it refuses ("after must be an ISO 8601 date-time …"), not zod's.
      const message = (source as Json).error
      const schema = typeof message === 'string' ? plain.clone({ ...plain._zod.def, error: () => message }) : plain
      return [field, required.has(name) ? schema : schema.optional()]
    }),
  ) as { [F in K]: z.ZodType<RouteValue<T, F>> }
}

/**
 * A list field of the route whose items the route checks one by one (a bulk ingest's documents, a thread's messages):
 * its bounds and description, with `item` — the item's own route schema, through routeInput — for its items.
 */
export function routeList<I extends z.ZodType>(route: TObject, field: string, item: I, description?: string): z.ZodArray<I> {
  const list = route.properties[field] as { minItems?: number; maxItems?: number; description?: string } | undefined
  if (!list) throw new Error(`route schema has no field ${field}`)
  let schema = z.array(item)
  if (list.minItems !== undefined) schema = schema.min(list.minItems)
  if (list.maxItems !== undefined) schema = schema.max(list.maxItems)
  const said = description ?? list.description
  return said === undefined ? schema : schema.describe(said)
}
