// A tool's input taken from the TypeBox schema of the route it calls, so its limits, enums, filters and
// descriptions are the route's own and cannot drift (test/mcp/tool-inputs.test.ts compares every such tool).
import type { TObject } from '@sinclair/typebox'
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

/** What a query field holds once validated (every route field a tool takes so far is a query's). */
export type QueryValue = string | number | undefined

/** The zod shape of the tool's `fields`, each the route's field of that name (or of its `rename`). */
export function routeInput<K extends string>(route: TObject, fields: K[], options: FromRoute = {}): Record<K, z.ZodType<QueryValue>> {
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
  ) as Record<K, z.ZodType<QueryValue>>
}
