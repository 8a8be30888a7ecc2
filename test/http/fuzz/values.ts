// What the fuzz sends: a valid value for a declared JSON schema, the hostile values of each kind, and a JSON
// writer that can also emit what JSON.stringify cannot (1e309, nesting 5,000 deep) as raw text.

export type Schema = {
  type?: string | string[]
  enum?: unknown[]
  const?: unknown
  format?: string
  properties?: Record<string, Schema>
  required?: string[]
  items?: Schema
  anyOf?: Schema[]
  minimum?: number
  minItems?: number
  minLength?: number
  patternProperties?: Record<string, Schema>
}

/** JSON text written as is, for values JSON.stringify cannot produce. */
export class Raw {
  constructor(readonly text: string) {}
}

export function toJson(value: unknown): string {
  if (value instanceof Raw) return value.text
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`
  if (value !== null && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}:${toJson(v)}`)
      .join(',')}}`
  return JSON.stringify(value) ?? 'null'
}

export const DEPTH = 5_000
export const deepObject = () => new Raw('{"a":'.repeat(DEPTH) + '1' + '}'.repeat(DEPTH))
export const deepArray = () => new Raw('['.repeat(DEPTH) + ']'.repeat(DEPTH))

/** The JSON types a schema admits ("number" admits integers). */
export function typesOf(schema: Schema | undefined): Set<string> {
  const types = new Set<string>()
  if (!schema) return types
  for (const t of [schema.type ?? []].flat()) types.add(t)
  for (const s of schema.anyOf ?? []) for (const t of typesOf(s)) types.add(t)
  if (schema.patternProperties && !schema.type) types.add('object')
  if (schema.const !== undefined) types.add(typeof schema.const)
  if (schema.enum) for (const e of schema.enum) types.add(e === null ? 'null' : typeof e)
  if (types.has('number')) types.add('integer')
  return types
}

/** One value of each JSON type: a field that admits none of a value's types gets it as "wrong type". */
const ALIENS: [string, unknown][] = [
  ['string', 'fuzz'],
  ['integer', 7],
  ['number', 1.5],
  ['boolean', true],
  ['object', { a: 1 }],
  ['array', ['fuzz']],
  ['null', null],
]

export function wrongTypes(schema: Schema): [string, unknown][] {
  const admitted = typesOf(schema)
  if (admitted.size === 0) return []
  return ALIENS.filter(([type]) => !admitted.has(type))
}

/** Hostile values for a field, by the kind of value it declares. */
export function hostileValues(schema: Schema): [string, unknown, string][] {
  const types = typesOf(schema)
  const out: [string, unknown, string][] = []
  if (types.has('string')) {
    out.push(
      ['NUL in string', 'a\u0000b', 'nul'],
      ['lone surrogate \\udfff', '\udfff', 'surrogate'],
      ['lone high surrogate', 'a\ud800b', 'surrogate'],
      ['300,000-character string', 'x'.repeat(300_000), 'huge'],
      ['empty string', '', 'empty'],
    )
  }
  if (types.has('integer') || types.has('number')) {
    out.push(
      ['1e309 (Infinity)', new Raw('1e309'), 'huge'],
      ['-1e309', new Raw('-1e309'), 'huge'],
      ['2^53+1', new Raw('9007199254740993'), 'huge'],
      ['1e20', 1e20, 'huge'],
      ['-1', -1, 'range'],
      ['0.5', 0.5, 'range'],
    )
  }
  if (types.has('object')) {
    out.push(
      ['object nested 5,000 deep', deepObject(), 'deep'],
      ['array nested 5,000 deep inside', { a: deepArray() }, 'deep'],
      ['17 KiB object', { k: 'x'.repeat(17 * 1024) }, 'huge'],
      ['NUL in a value', { k: 'a\u0000b' }, 'nul'],
      ['NUL in a key', { 'a\u0000b': 1 }, 'nul'],
      ['lone surrogate in a value', { k: '\udfff' }, 'surrogate'],
      ['lone surrogate in a key', { '\udfff': 1 }, 'surrogate'],
      ['string where object', 'abc', 'wrong-type'],
      ['array where object', ['a', 'b'], 'wrong-type'],
    )
  }
  if (types.has('array')) {
    out.push(
      ['10,000 items', Array.from({ length: 10_000 }, (_, i) => `item-${i}`), 'huge'],
      ['[null]', [null], 'wrong-type'],
      ['array of 5,000-deep nesting', [deepArray()], 'deep'],
      ['NUL in an item', ['a\u0000b'], 'nul'],
      ['lone surrogate in an item', ['\udfff'], 'surrogate'],
    )
  }
  return out
}

/** A valid value for `schema`; `named` gives the real ids and values the API needs by field name. */
export function validValue(schema: Schema | undefined, name: string, named: Record<string, unknown>): unknown {
  if (name in named) return named[name]
  if (!schema) return 'fuzz'
  if (schema.const !== undefined) return schema.const
  if (schema.enum?.length) return schema.enum[0]
  if (schema.anyOf?.length) return validValue(schema.anyOf.find((s) => s.type !== 'null') ?? schema.anyOf[0], name, named)
  const type =
    [schema.type ?? (schema.properties || schema.patternProperties ? 'object' : 'string')].flat().find((t) => t !== 'null') ?? 'null'
  switch (type) {
    case 'string':
      if (schema.format === 'uuid') return '00000000-0000-4000-8000-000000000000'
      if (schema.format === 'email') return 'fuzz-valid@example.com'
      if (schema.format === 'uri') return 'https://example.com/fuzz'
      return 'fuzz value'.padEnd(schema.minLength ?? 0, 'z')
    case 'integer':
    case 'number':
      return Math.max(schema.minimum ?? 1, 1)
    case 'boolean':
      return false
    case 'array':
      return Array.from({ length: Math.max(schema.minItems ?? 1, 1) }, () => validValue(schema.items, `${name}[]`, named))
    case 'object':
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, s]) => [k, validValue(s, k, named)]))
    default:
      return null
  }
}
