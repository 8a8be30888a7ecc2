// What client generators need of /openapi/json beyond valid OpenAPI 3.1 (openapi-generator's python and
// typescript-fetch fail otherwise): every discriminator with a `mapping`, and no schema that allows only null.

type Json = Record<string, any>

const COMPONENT = '#/components/schemas/'

/**
 * A oneOf told apart by a member (`discriminator: { propertyName }`) gets its mapping written out: the member's
 * `const` in each branch → that branch's $ref. Without one, openapi-generator's typescript-fetch writes
 * `export type AnswerEvent = ;`. Every branch must be a component with a `const` (or one-value `enum`) there.
 */
export function mapDiscriminators(schemas: Json): void {
  for (const schema of Object.values<Json>(schemas)) {
    const { discriminator, oneOf } = schema
    if (!discriminator?.propertyName || discriminator.mapping || !Array.isArray(oneOf)) continue
    const mapping: Record<string, string> = {}
    for (const branch of oneOf as Json[]) {
      const target =
        typeof branch.$ref === 'string' && branch.$ref.startsWith(COMPONENT) ? schemas[branch.$ref.slice(COMPONENT.length)] : null
      const member = target?.properties?.[discriminator.propertyName]
      const value = member?.const ?? (member?.enum?.length === 1 ? member.enum[0] : undefined)
      if (typeof value !== 'string') return // left unmapped: generatorProblems names it
      mapping[value] = branch.$ref
    }
    discriminator.mapping = mapping
  }
}

/** A schema whose only value is null: generators have no type to give it (python aborts, typescript imports `./Null`). */
function nullOnly(schema: Json): boolean {
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type]
  if (types.length && types.every((t: unknown) => t === 'null')) return true
  if ('const' in schema && schema.const === null) return true
  if (Array.isArray(schema.enum) && schema.enum.length && schema.enum.every((v: unknown) => v === null)) return true
  const union = schema.anyOf ?? schema.oneOf
  return Array.isArray(union) && union.length > 0 && union.every((b: Json) => b && typeof b === 'object' && nullOnly(b))
}

/**
 * Where the document breaks a generator, one line each: a schema that is null only (a property that is always
 * null says what it would be, nullable, or is not declared), and a discriminator without a mapping or with a
 * mapping to a schema that is not there. Empty when generators can use the document as is.
 */
export function generatorProblems(document: Json): string[] {
  const problems: string[] = []
  const schemas: Json = document.components?.schemas ?? {}
  const visit = (node: unknown, path: string, key?: string): void => {
    if (Array.isArray(node)) {
      // A null branch beside another is how OpenAPI 3.1 says nullable: only its other branches are visited.
      const union = key === 'anyOf' || key === 'oneOf'
      const typed = union && node.some((b) => b && typeof b === 'object' && !nullOnly(b))
      node.forEach((n, i) => {
        if (!(typed && nullOnly(n))) visit(n, `${path}/${i}`)
      })
      return
    }
    if (node === null || typeof node !== 'object') return
    const obj = node as Json
    // `properties` holds names, examples hold values: their members are visited, not the map itself.
    if (key !== 'properties' && key !== 'mapping' && nullOnly(obj)) {
      problems.push(`${path}: only null (give it a type, nullable)`)
      return
    }
    const discriminator = key === 'properties' ? undefined : obj.discriminator
    if (discriminator && typeof discriminator === 'object') {
      const mapping = discriminator.mapping as Record<string, string> | undefined
      if (!mapping || !Object.keys(mapping).length) problems.push(`${path}: a discriminator without a mapping`)
      for (const [value, ref] of Object.entries(mapping ?? {}))
        if (!ref.startsWith(COMPONENT) || !schemas[ref.slice(COMPONENT.length)])
          problems.push(`${path}: the discriminator maps ${value} to ${ref}, which is not a schema of the document`)
    }
    for (const [k, v] of Object.entries(obj)) {
      if (key !== 'properties' && (k === 'example' || k === 'examples')) continue
      visit(v, `${path}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, key === 'properties' ? undefined : k)
    }
  }
  visit(document, '#')
  return problems
}
