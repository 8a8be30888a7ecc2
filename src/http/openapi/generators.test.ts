// The rules that keep /openapi/json usable by client generators: what they flag, and the mapping written for a
// discriminated union.
import { describe, expect, test } from 'bun:test'
import { generatorProblems, mapDiscriminators } from './generators'

const event = (type: string) => ({ type: 'object', properties: { type: { type: 'string', const: type } } })
const doc = (schemas: Record<string, unknown>) => ({ openapi: '3.1.0', paths: {}, components: { schemas } })

describe('generatorProblems', () => {
  test('a property that is only null is named, however it is written; a nullable one is not', () => {
    const schemas = {
      Choice: {
        type: 'object',
        properties: {
          logprobs: { type: 'null' },
          refusal: { type: ['null'] },
          param: { const: null },
          id: { anyOf: [{ type: 'null' }] },
          content: { anyOf: [{ type: 'string' }, { type: 'null' }] },
          limit: { type: ['integer', 'null'] },
          // A member may be called `type` or `const`: the map of names is no schema.
          type: { type: 'string' },
          const: { type: 'string' },
        },
      },
    }
    expect(generatorProblems(doc(schemas))).toEqual([
      '#/components/schemas/Choice/properties/logprobs: only null (give it a type, nullable)',
      '#/components/schemas/Choice/properties/refusal: only null (give it a type, nullable)',
      '#/components/schemas/Choice/properties/param: only null (give it a type, nullable)',
      '#/components/schemas/Choice/properties/id: only null (give it a type, nullable)',
    ])
  })

  test('examples are values, not schemas: a null in one is no problem', () => {
    const paths = { '/x': { get: { responses: { 200: { content: { 'application/json': { example: { type: 'null' } } } } } } } }
    expect(generatorProblems({ openapi: '3.1.0', paths })).toEqual([])
  })

  test('a discriminator without a mapping, or mapping to a schema that is not there, is named', () => {
    const schemas = {
      Event: { oneOf: [{ $ref: '#/components/schemas/A' }], discriminator: { propertyName: 'type' } },
      Other: {
        oneOf: [{ $ref: '#/components/schemas/A' }],
        discriminator: { propertyName: 'type', mapping: { b: '#/components/schemas/B' } },
      },
      A: event('a'),
    }
    expect(generatorProblems(doc(schemas))).toEqual([
      '#/components/schemas/Event: a discriminator without a mapping',
      '#/components/schemas/Other: the discriminator maps b to #/components/schemas/B, which is not a schema of the document',
    ])
  })
})

describe('mapDiscriminators', () => {
  test("maps each branch's const to its $ref, and leaves a union it cannot map for generatorProblems to name", () => {
    const schemas: Record<string, any> = {
      Event: {
        oneOf: [{ $ref: '#/components/schemas/Delta' }, { $ref: '#/components/schemas/Saved' }],
        discriminator: { propertyName: 'type' },
      },
      Loose: { oneOf: [{ $ref: '#/components/schemas/Delta' }, { type: 'object' }], discriminator: { propertyName: 'type' } },
      Delta: event('delta'),
      Saved: event('saved'),
    }
    mapDiscriminators(schemas)
    expect(schemas.Event.discriminator.mapping).toEqual({ delta: '#/components/schemas/Delta', saved: '#/components/schemas/Saved' })
    expect(schemas.Loose.discriminator.mapping).toBeUndefined()
    expect(generatorProblems(doc(schemas))).toEqual(['#/components/schemas/Loose: a discriminator without a mapping'])
  })
})
