// hoistTitled: one titled schema, one component — also once Elysia has closed a route's copy of it.
import { describe, expect, test } from 'bun:test'
import { hoistTitled } from './components'

const result = { title: 'Result', type: 'object', properties: { n: { type: 'integer' } } }

describe('titled schemas become components', () => {
  test('the same schema reached twice is one component, referred to from both places', () => {
    const schemas = {}
    const root: Record<string, unknown> = { a: { ...result }, b: { ...result } }
    expect(hoistTitled(root, schemas)).toEqual([])
    expect(root).toEqual({ a: { $ref: '#/components/schemas/Result' }, b: { $ref: '#/components/schemas/Result' } })
  })

  test('a copy Elysia closed after serving a request (additionalProperties: false) is the same schema, not a clash', () => {
    const schemas = {}
    const root: Record<string, unknown> = { a: { ...result, additionalProperties: false }, b: { ...result } }
    expect(hoistTitled(root, schemas)).toEqual([])
    expect(root.b).toEqual({ $ref: '#/components/schemas/Result' })
  })

  test('two different schemas under one title are a clash, named', () => {
    const schemas = {}
    const root = { a: { ...result }, b: { ...result, properties: { m: { type: 'string' } } } }
    expect(hoistTitled(root, schemas)).toEqual(['Result'])
  })
})
