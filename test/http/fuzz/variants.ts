// The malformed requests for one OpenAPI operation: bad credentials, bad path ids, bad query values, bodies
// that are not objects or not JSON, wrong content types, and each field missing, wrong-typed or hostile.
import type { Fixtures } from './fixtures'
import { actorFor, namedValues, otherUsers, pathValue } from './targets'
import { deepArray, deepObject, hostileValues, Raw, toJson, typesOf, validValue, wrongTypes, type Schema } from './values'

export interface Operation {
  method: string
  path: string
  op: {
    security?: unknown[]
    parameters?: { name: string; in: string; required?: boolean; schema?: Schema }[]
    requestBody?: { content?: Record<string, { schema?: Schema }> }
  }
}

export interface Variant {
  /** "METHOD /path/{template}" as the OpenAPI document names the operation. */
  op: string
  /** What is wrong with this request, e.g. "body.metadata: object nested 5,000 deep". */
  name: string
  /** The class of input, for the failure summary: nul, surrogate, deep, huge, wrong-type, bad-id, … */
  cls: string
  method: string
  target: string
  headers: Record<string, string>
  body?: string | Uint8Array
}

interface Parts {
  path?: Record<string, string>
  query?: [string, string][]
  body?: string | Uint8Array
  contentType?: string | null
  auth?: 'default' | 'none' | Record<string, string>
}

const enc = encodeURIComponent

export function variantsOf(f: Fixtures, { method: m, path, op }: Operation): Variant[] {
  const method = m.toUpperCase()
  const key = `${method} ${path}`
  const actor = actorFor(f, path)
  const authed = (op.security?.length ?? 0) > 0
  const named = namedValues(f, method, path)
  const params = op.parameters ?? []
  const pathParams = params.filter((p) => p.in === 'path')
  const queryParams = params.filter((p) => p.in === 'query')
  const validPath = Object.fromEntries(pathParams.map((p) => [p.name, pathValue(f, method, path, p.name)]))
  const requiredQuery: [string, string][] = queryParams
    .filter((p) => p.required)
    .map((p) => [p.name, enc(String(validValue(p.schema, p.name, named)))])
  const jsonSchema = op.requestBody?.content?.['application/json']?.schema
  const base = jsonSchema ? ('__body' in named ? named.__body : validValue(jsonSchema, '', named)) : undefined
  const baseJson = base === undefined ? undefined : toJson(base)

  const out: Variant[] = []
  let n = 0
  const add = (cls: string, name: string, parts: Parts = {}) => {
    const headers: Record<string, string> = {}
    const auth = parts.auth ?? 'default'
    // Both ways in, alternately: the key (API clients) and the session cookie (dashboard, extension).
    if (auth === 'default' && authed) {
      if (n++ % 2 === 0) headers.authorization = `Bearer ${actor.key}`
      else headers.cookie = actor.cookie
    } else if (typeof auth === 'object') Object.assign(headers, auth)
    // An MCP client accepts both answers of the Streamable HTTP transport.
    if (path === '/mcp') headers.accept = 'application/json, text/event-stream'
    if (method !== 'GET' && !('origin' in headers) && auth !== 'none' && !(typeof auth === 'object' && auth.cookie)) headers.origin = f.url
    const body = 'body' in parts ? parts.body : baseJson
    if (body !== undefined) {
      const type = parts.contentType === undefined ? 'application/json' : parts.contentType
      if (type !== null) headers['content-type'] = type
    }
    const values = { ...validPath, ...parts.path }
    const filled = path.replace(/\{([^}]+)\}/g, (_, p: string) => values[p] ?? '')
    const query = (parts.query ?? requiredQuery).map(([k, v]) => `${enc(k)}=${v}`).join('&')
    out.push({ op: key, name, cls, method, target: query ? `${filled}?${query}` : filled, headers, body })
  }

  if (authed) {
    add('auth', 'no credentials', { auth: 'none' })
    add('auth', 'Authorization: Bearer not-a-key', { auth: { authorization: 'Bearer not-a-key' } })
    add('auth', 'Authorization: Basic', { auth: { authorization: 'Basic Zm9vOmJhcg==' } })
    add('auth', 'garbage session cookie', { auth: { cookie: 'session=garbage%00%ED%BF%BF' } })
    if (method !== 'GET') {
      add('auth', 'session cookie without Origin', { auth: { cookie: actor.cookie } })
      add('auth', 'session cookie from a foreign Origin', { auth: { cookie: actor.cookie, origin: 'https://evil.example' } })
    }
  }

  for (const p of pathParams) {
    const valid = validPath[p.name]!
    for (const [cls, name, value] of badIds(valid, otherUsers(f, path, p.name)))
      add(cls, `path {${p.name}}: ${name}`, { path: { [p.name]: value } })
  }

  for (const p of queryParams) {
    const others = requiredQuery.filter(([k]) => k !== p.name)
    const valid = requiredQuery.find(([k]) => k === p.name)?.[1] ?? enc(String(validValue(p.schema, p.name, named)))
    for (const [cls, name, value] of badQueryValues(p.name, p.schema, valid, p.name === 'workspace_id' ? f.other.workspace : undefined)) {
      add(cls, `query ${p.name}: ${name}`, { query: [...others, [p.name, value]] })
    }
    if (p.required) add('missing', `query ${p.name}: missing`, { query: others })
  }

  if (jsonSchema) bodyVariants(jsonSchema, base, add)
  else if (method !== 'GET' && method !== 'DELETE') {
    // Routes that take no body must not choke on one.
    add('unexpected-body', 'unexpected JSON body', { body: '{"a":1}' })
    add('deep', 'unexpected body nested 5,000 deep', { body: deepObject().text })
    add('malformed', 'unexpected malformed JSON body', { body: '{' })
  }
  return out
}

function bodyVariants(schema: Schema, base: unknown, add: (cls: string, name: string, parts?: Parts) => void) {
  for (const text of ['[]', '"x"', '1', 'null', 'true', '[{}]']) add('non-object', `body is ${text}`, { body: text })
  add('deep', 'body: array nested 5,000 deep', { body: deepArray().text })
  add('deep', 'body: object nested 5,000 deep', { body: deepObject().text })
  if (isObject(base)) add('deep', 'body: extra field nested 5,000 deep', { body: toJson({ ...base, zz_fuzz: deepObject() }) })
  add('malformed', 'body: "{"', { body: '{' })
  add('malformed', 'body: trailing comma', { body: '{"a":1,}' })
  add('malformed', 'body: empty with a JSON content-type', { body: '' })
  add('malformed', 'body: raw NUL byte in JSON text', { body: '{"a":"x\u0000y"}' })
  add('malformed', 'body: invalid UTF-8 bytes', { body: new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]) })
  add('content-type', 'content-type text/plain', { contentType: 'text/plain' })
  add('content-type', 'no content-type', { contentType: null })
  add('content-type', 'content-type application/xml', { contentType: 'application/xml', body: '<a/>' })
  if (isObject(base)) {
    const form = new URLSearchParams(Object.entries(base).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])).toString()
    add('content-type', 'form-urlencoded body', { contentType: 'application/x-www-form-urlencoded', body: form })
    const boundary = 'fuzzboundary'
    const multipart =
      Object.entries(base)
        .map(
          ([k, v]) =>
            `--${boundary}\r\ncontent-disposition: form-data; name="${k}"\r\n\r\n${typeof v === 'string' ? v : JSON.stringify(v)}\r\n`,
        )
        .join('') + `--${boundary}--\r\n`
    add('content-type', 'multipart body', { contentType: `multipart/form-data; boundary=${boundary}`, body: multipart })
    add('missing', 'body: {}', { body: '{}' })
    for (const r of schema.required ?? []) {
      const { [r]: _, ...rest } = base
      add('missing', `body.${r}: missing`, { body: toJson(rest) })
    }
  }
  for (const [field, fieldSchema] of fieldsOf(schema, base)) {
    const label = `body${field.map((k) => (typeof k === 'number' ? `[${k}]` : `.${k}`)).join('')}`
    for (const [type, value] of wrongTypes(fieldSchema))
      add('wrong-type', `${label}: ${type} (${toJson(value)}) where ${[...typesOf(fieldSchema)].join('|')}`, {
        body: toJson(setAt(base, field, value)),
      })
    for (const [name, value, cls] of hostileValues(fieldSchema)) add(cls, `${label}: ${name}`, { body: toJson(setAt(base, field, value)) })
  }
}

/** Top-level fields, and the fields of objects inside arrays (learnings[0].title, messages[0].content). */
function fieldsOf(schema: Schema, base: unknown): [(string | number)[], Schema][] {
  const out: [(string | number)[], Schema][] = []
  if (!isObject(base)) return out
  for (const [k, s] of Object.entries(schema.properties ?? {})) {
    out.push([[k], s])
    const items = s.items
    if (items?.properties && Array.isArray(base[k])) for (const [ik, is] of Object.entries(items.properties)) out.push([[k, 0, ik], is])
  }
  return out
}

function setAt(base: unknown, path: (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value
  const [head, ...rest] = path as [string | number, ...(string | number)[]]
  const copy: any = Array.isArray(base) ? [...base] : { ...(base as object) }
  copy[head] = setAt(copy[head], rest, value)
  return copy
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Raw)

/** Path segments that are not the id the route wants; raw, as a hostile client writes them on the wire. */
function badIds(valid: string, other: string): [string, string, string][] {
  return [
    ['bad-id', 'not a uuid', 'not-a-uuid'],
    ['bad-id', "another user's id", other],
    ['bad-id', 'unknown uuid', '0190a000-0000-7000-8000-0000000beef0'],
    ['bad-id', 'uuid with trailing %20', `${valid}%20`],
    ['bad-id', '5,000 characters', 'a'.repeat(5000)],
    ['bad-id', '-1', '-1'],
    ['nul', '%00', '%00'],
    ['nul', 'NUL inside', `${valid.slice(0, 8)}%00${valid.slice(8)}`],
    ['surrogate', 'lone surrogate as CESU-8 bytes (%ED%BF%BF)', '%ED%BF%BF'],
    ['encoding', 'invalid UTF-8 (%FF)', '%FF'],
    ['encoding', 'bare %', '%'],
    ['dot-segment', '%2e%2e', '%2e%2e'],
    ['dot-segment', '%2E%2E', '%2E%2E'],
    ['dot-segment', '.%2e', '.%2e'],
    ['dot-segment', '..%2f', '..%2f'],
    ['dot-segment', '%2e%2e%2f%2e%2e', '%2e%2e%2f%2e%2e'],
    ['dot-segment', '%2e', '%2e'],
    ['dot-segment', 'encoded slash inside', `${valid}%2Fx`],
  ]
}

function badQueryValues(name: string, schema: Schema | undefined, valid: string, other: string | undefined): [string, string, string][] {
  const types = typesOf(schema)
  const out: [string, string, string][] = [
    ['nul', '%00', '%00'],
    ['nul', 'NUL inside', `a%00b`],
    ['surrogate', 'lone surrogate as CESU-8 bytes (%ED%BF%BF)', '%ED%BF%BF'],
    ['encoding', 'invalid UTF-8 (%FF)', '%FF'],
    ['encoding', 'bare %', '%'],
    ['huge', '3,000 characters', 'x'.repeat(3000)],
    ['repeated', 'given twice', `${valid}&${enc(name)}=${valid}`],
    ['empty', 'empty', ''],
  ]
  if (types.has('integer') || types.has('number')) {
    for (const v of ['0x10', '%20', '1e2', '-1', '1.5', '1e309', '99999999999999999999', 'abc', '0', '+5', '%205', 'NaN', 'Infinity'])
      out.push(['query-int', v, v])
  }
  if (types.has('boolean')) for (const v of ['maybe', '2', 'TRUE', '1']) out.push(['query-bool', v, v])
  if (schema?.format === 'uuid') out.push(['bad-id', 'not a uuid', 'not-a-uuid'], ['bad-id', '..%2f', '..%2f'])
  if (other) out.push(['bad-id', "another user's workspace", other])
  if (schema?.enum) out.push(['enum', 'not one of the values', 'zzz'])
  if (name === 'q')
    for (const v of ["!!! ':* ((((", '?!', ':*', "'", '&&&', '*', '\\', 'a:*b', ' ', '<->', '!', '|'])
      out.push(['query-text', JSON.stringify(v), enc(v)])
  return out
}
