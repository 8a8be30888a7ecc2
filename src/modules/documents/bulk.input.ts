// Reads the items of a bulk ingest: each is checked against POST /api/documents' own schema, so an invalid item
// answers its own 400 (naming `documents[i].field`) and the others go on.
import type { TSchema } from '@sinclair/typebox'
import { type TypeCheck, TypeCompiler } from 'elysia/type-system'
import type { Principal } from '../auth/session-user'
import { type AppError, badRequest } from '../../http/errors'
import { writerOf } from './approval'
import { mapInGroups } from './bulk.groups'
import type { BulkItem } from './bulk.service'
import { IngestBody } from './documents.schemas'

const check = TypeCompiler.Compile(IngestBody)
const FIELDS = Object.keys(IngestBody.properties) as (keyof typeof IngestBody.properties)[]

/** Each raw item as an ingest input, or the 400 that says what is wrong with it. Checking a body counts its
 * characters: a group at a time, other requests between (bulk.groups.ts). */
export function readBulkItems(raw: unknown[], principal: Principal): Promise<(BulkItem | AppError)[]> {
  const writer = writerOf(principal)
  return mapInGroups(raw, textSize, (item, i) => {
    if (!check.Check(item)) return badRequest(describeInvalid(check, `documents[${i}]`, item))
    const body = item as typeof IngestBody.static
    // Only the known fields, as the single route's validator keeps them.
    const input = Object.fromEntries(FIELDS.flatMap((f) => (body[f] === undefined ? [] : [[f, body[f]]]))) as typeof IngestBody.static
    return { ...input, source: input.source ?? (principal.via === 'session' ? 'extension' : 'api'), writer }
  })
}

const textSize = (item: unknown) => {
  const body = (item as { body?: unknown } | null)?.body
  return typeof body === 'string' ? body.length : 0
}

/** What is wrong with an item `check` refused, as `<where>.field: message` (the schema's own error when it has one). */
export function describeInvalid(check: TypeCheck<TSchema>, where: string, item: unknown): string {
  const first = check.Errors(item).First()
  if (!first) return `${where}: invalid`
  const path = first.path
    .split('/')
    .filter(Boolean)
    .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`))
    .join('')
  const message = (first.schema as { error?: unknown }).error ?? first.message
  return `${where}${path}: ${String(message)}`
}
