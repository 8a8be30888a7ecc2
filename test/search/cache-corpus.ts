// What the tests of the cached indexes (keyword and vector) share: a small vocabulary and seeded texts over it,
// a corpus with every field a filter or boost reads, the filters to compare under, and each filter as the SQL
// ranking's WHERE clause — a cached index must rank exactly as that SQL does.
import { expect } from 'bun:test'
import { type SQL, sql } from 'drizzle-orm'
import { type DocumentFields, type DocumentFilter, timeConditions } from '../../src/retrieval/document-fields'
import type { TestApp, TestUser } from '../harness'
import type { SeededRandom } from '../seeded-random'

/** A small vocabulary, so documents share words (real document frequencies) and queries match many of them. */
export const SCIENCE_WORDS = [
  'vaccine',
  'vaccination',
  'immune',
  'response',
  'protein',
  'cell',
  'tumor',
  'growth',
  'signal',
  'pathway',
  'mouse',
  'patient',
  'trial',
  'dose',
  'risk',
  'gene',
  'expression',
  'receptor',
  'binding',
  'kinase',
]

/** `length` words of `words` from a linear congruential generator seeded with `seed`: the same seed, the same text. */
export function seededText(seed: number, length: number, words: readonly string[] = SCIENCE_WORDS): string {
  let x = seed
  const out: string[] = []
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) % 2147483648
    out.push(words[x % words.length]!)
  }
  return out.join(' ')
}

/**
 * Ingests 60 "Study" documents for `u` through the API — tags, kinds, pins, times and a second workspace spread over
 * them (every 3rd tagged lab, every 4th a note, every 11th pinned, every 5th in `other`, the i-th happened on day
 * i % 10 of STUDY_DAYS) — then archives the 7th and rates the 8th up and the 9th down. `content(i)` gives each one's title and body. Answers their ids by number.
 */
export async function ingestStudies(
  t: TestApp,
  u: TestUser,
  other: string,
  content: (i: number) => { title: string; body: string },
): Promise<Record<number, string>> {
  const docs: Record<number, string> = {}
  for (let i = 0; i < 60; i++) {
    const body = {
      ...content(i),
      tags: i % 3 === 0 ? ['lab'] : ['clinic'],
      kind: i % 4 === 0 ? 'note' : 'document',
      pinned: i % 11 === 0,
      ...(i % 5 === 0 ? { workspace_id: other } : {}),
      occurred_at: studyDay(i % 10),
    }
    const res = await t.json('POST', '/api/documents', { key: u.key, body })
    expect(res.status).toBe(201)
    docs[i] = res.body.id
  }
  await t.json('POST', `/api/documents/${docs[7]}/archive`, { key: u.key })
  await t.json('POST', `/api/documents/${docs[8]}/rate`, { key: u.key, body: { rating: 1 } })
  await t.json('POST', `/api/documents/${docs[9]}/rate`, { key: u.key, body: { rating: -1 } })
  return docs
}

/** The days the studies happened on: day k is 1 May 2023 + k days, at k hours past midnight UTC. */
export const studyDay = (k: number) => new Date(Date.UTC(2023, 4, 1 + k, k)).toISOString()
const ms = (k: number) => Date.parse(studyDay(k).slice(0, 10))

/**
 * Every filter a search passes to a copy, on an `ingestStudies` corpus: the other workspace, a document left out
 * (the 3rd), the archived one alone (the 7th), time ranges (open on either side, a day's start exactly, empty).
 */
export function studyFilters(other: string, docs: Record<number, string>): DocumentFilter[] {
  return [
    {},
    { workspaceId: other },
    { kind: 'note' },
    { tag: 'lab' },
    { source: 'api' },
    { source: 'extension' },
    { excludeDocument: docs[3] },
    { onlyDocument: docs[7] },
    { after: ms(3) },
    { before: ms(6) },
    { after: ms(2), before: ms(5) },
    { after: Date.parse(studyDay(4)), before: Date.parse(studyDay(4)) + 1 },
    { after: ms(4), before: ms(4) },
    { kind: 'note', after: ms(5), tag: 'lab' },
  ]
}

/** `f` as the SQL ranking's WHERE clause over documents `d` of user `userId`. */
export function sqlFilter(userId: string, f: DocumentFilter): SQL {
  if (f.onlyDocument) return sql`d.id = ${f.onlyDocument}`
  const parts = [sql`d.user_id = ${userId}`, sql`d.status = 'active'`]
  if (f.excludeDocument) parts.push(sql`d.id <> ${f.excludeDocument}`)
  if (f.workspaceId !== undefined) parts.push(sql`d.workspace_id = ${f.workspaceId}`)
  if (f.kind) parts.push(sql`d.kind = ${f.kind}`)
  if (f.source) parts.push(sql`d.source = ${f.source}`)
  if (f.tag) parts.push(sql`d.tags @> array[${f.tag}]::text[]`)
  parts.push(...timeConditions(sql`d.occurred_at`, f))
  return sql.join(parts, sql` and `)
}

/** The two workspaces randomFields files documents in. */
export const RANDOM_WORKSPACES = ['11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222']

/** Random filtered and boosted fields for document `id` (the copies' property tests): mostly active, some pinned or rated. */
export function randomFields(r: SeededRandom, id: string): DocumentFields {
  return {
    id,
    status: r.next() < 0.85 ? 'active' : 'archived',
    workspace_id: r.pick(RANDOM_WORKSPACES),
    kind: r.pick(['document', 'note']),
    source: r.pick(['api', 'extension']),
    tags: r.next() < 0.3 ? [r.pick(['lab', 'clinic'])] : [],
    pinned: r.next() < 0.1,
    rating: r.pick([-1, 0, 0, 1]),
    occurred_at: RANDOM_EPOCH + r.int(RANDOM_DAYS) * DAY,
  }
}

const DAY = 86_400_000
/** randomFields' documents happened on one of RANDOM_DAYS days from RANDOM_EPOCH (so several share a time). */
export const RANDOM_EPOCH = Date.UTC(2023, 0, 1)
export const RANDOM_DAYS = 20

/** A random time filter over randomFields' days: open on either side, a single day, or empty. */
export function randomTimeRange(r: SeededRandom): { after?: number; before?: number } {
  const day = () => RANDOM_EPOCH + r.int(RANDOM_DAYS + 2) * DAY - DAY
  const roll = r.next()
  if (roll < 0.3) return { after: day() }
  if (roll < 0.6) return { before: day() }
  const after = day()
  return { after, before: roll < 0.9 ? after + r.int(8) * DAY : after }
}
