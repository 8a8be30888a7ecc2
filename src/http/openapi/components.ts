// Shared schemas by $ref: each titled schema (Error, Document, DocumentSummary…) the routes use is written
// once under components/schemas and referred to everywhere else, as generators name types after them.
import { deepEquals } from 'bun'

type Json = Record<string, any>

const isSchema = (node: Json) => ['type', 'properties', 'anyOf', 'oneOf', 'allOf', 'enum', 'const'].some((k) => k in node)

/**
 * The schema without its `additionalProperties`: Elysia sets `additionalProperties: false` on a route's response
 * schema object the first time the route answers, so a titled schema reached through a clone (`t.Optional(X)`) and
 * directly differs by that alone once the app has served a request — the same schema, not a clash.
 */
const withoutClosedness = (node: unknown): unknown =>
  Array.isArray(node)
    ? node.map(withoutClosedness)
    : node !== null && typeof node === 'object'
      ? Object.fromEntries(Object.entries(node).flatMap(([k, v]) => (k === 'additionalProperties' ? [] : [[k, withoutClosedness(v)]])))
      : node

/**
 * Moves every schema with a `title` into `schemas` and leaves a $ref in its place, innermost first so an
 * outer schema holds refs to the inner ones. Two different schemas under one title are a bug in the route
 * schemas: the second keeps its place inline and its title is returned, for the test to name.
 */
export function hoistTitled(root: Json, schemas: Json): string[] {
  const clashes = new Set<string>()
  const visit = (node: unknown, key?: string): unknown => {
    if (Array.isArray(node)) return node.map((n) => visit(n))
    if (node === null || typeof node !== 'object') return node
    // `properties` and `examples` hold names and values, not schemas: visit their members, not the map itself.
    const obj: Json = Object.fromEntries(
      Object.entries(node).map(([k, v]) => [k, key === 'properties' ? visit(v) : k === 'examples' || k === 'example' ? v : visit(v, k)]),
    )
    if (key === 'properties' || typeof obj.title !== 'string' || !isSchema(obj)) return obj
    const name = obj.title.replace(/[^\w.-]/g, '')
    if (!schemas[name]) schemas[name] = obj
    else if (!deepEquals(withoutClosedness(schemas[name]), withoutClosedness(obj))) {
      clashes.add(name)
      return obj
    }
    return { $ref: `#/components/schemas/${name}` }
  }
  Object.assign(root, visit(root))
  return [...clashes]
}
