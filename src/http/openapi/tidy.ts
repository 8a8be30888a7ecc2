// Elysia's schemas made plain OpenAPI 3.1: what toOpenAPISchema leaves that is not OpenAPI, or not what the route means.
/**
 * Elysia's schemas carry details that are not OpenAPI: its `error` messages, `nullable` beside a
 * `null` type, the string branch it accepts for numbers in query strings, number enums typed as strings,
 * and a `void` content for 204.
 */
export function tidy(node: unknown, key?: string): any {
  if (Array.isArray(node)) return node.map((n) => tidy(n))
  if (node === null || typeof node !== 'object') return node
  const obj = { ...(node as Record<string, unknown>) }
  if (Array.isArray(obj.anyOf)) {
    const branches = obj.anyOf as Record<string, unknown>[]
    const numeric = branches.find((b) => b.type === 'integer' || b.type === 'number')
    const coerced = branches.find((b) => b.type === 'string' && (b.format === 'integer' || b.format === 'numeric'))
    if (numeric && coerced && branches.length === 2) {
      delete obj.anyOf
      Object.assign(obj, numeric)
    }
  }
  // A union of number literals comes out as `type: string` with numbers in its enum.
  if (Array.isArray(obj.enum) && obj.type === 'string' && obj.enum.length && obj.enum.every((v) => typeof v === 'number')) {
    obj.type = obj.enum.every((v) => Number.isInteger(v)) ? 'integer' : 'number'
  }
  // t.File's default is the word "File", not a value.
  if (obj.format === 'binary' && obj.default === 'File') delete obj.default
  if (typeof obj.error === 'string' || typeof obj.error === 'function') delete obj.error
  // OpenAPI 3.1 writes null as a type (a `null` branch or `type: [..., 'null']`); `nullable` is 3.0 only.
  if (
    obj.nullable === true &&
    ((Array.isArray(obj.type) && obj.type.includes('null')) || (Array.isArray(obj.anyOf) && obj.anyOf.some((b: any) => b?.type === 'null')))
  )
    delete obj.nullable
  if (key === 'responses') {
    for (const [status, response] of Object.entries(obj)) {
      if (status === '204' && response && typeof response === 'object') obj[status] = { description: 'No content' }
      // Any other answer without a body (t.Void) comes out with the void schema as its "content".
      const content = (response as { content?: Record<string, unknown> } | null)?.content
      if (status !== '204' && content && Object.keys(content).some((k) => !k.includes('/'))) {
        obj[status] = { description: (content.description as string | undefined) ?? 'No content' }
      }
      // Redirects carry a Location header, not a body.
      if (status === '302' && response && typeof response === 'object') {
        obj[status] = { description: 'Redirect', headers: { Location: { description: 'Where to go next', schema: { type: 'string' } } } }
      }
    }
  }
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, tidy(v, k)]))
}
