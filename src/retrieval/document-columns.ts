// The column store of a cached index segment: the fields a search filters and boosts by (document-fields.ts), one
// typed array each, documents in id order — held the same way by the keyword and the vector index, and tested
// against a search's filter here, once (filterTest), as filterSql says it in SQL.
import { withinTime, type DocumentFields, type DocumentFilter } from './document-fields'
import { boostOf } from './ranking'

export interface DocumentColumns {
  /** Documents, in id order: comparing two document numbers compares their ids (the rankings' tie-break). */
  count: number
  /** 16 bytes a document: its uuid. */
  ids: Uint8Array
  active: Uint8Array
  pinned: Uint8Array
  rating: Int8Array
  /** Codes into the name tables below (filters compare codes). */
  workspace: Int32Array
  kind: Int32Array
  source: Int32Array
  names: { workspace: string[]; kind: string[]; source: string[]; tag: string[] }
  /** Tags of document d: tagCodes[tagStart[d] .. tagStart[d + 1]). */
  tagStart: Int32Array
  tagCodes: Int32Array
  /** When document d happened, epoch ms (DocumentFields.occurred_at). */
  occurred: Float64Array
  /** Bytes of the arrays and the name tables (2 a character). */
  bytes: number
}

/** Codes for a few distinct strings (workspaces, kinds, sources, tags). */
class Names {
  readonly list: string[] = []
  private readonly codes = new Map<string, number>()
  code(name: string): number {
    let c = this.codes.get(name)
    if (c === undefined) this.codes.set(name, (c = this.list.push(name) - 1))
    return c
  }
}

export const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

/** The columns of `fields`, which must be sorted by id (byId). */
export function columnsOf(fields: DocumentFields[]): DocumentColumns {
  const count = fields.length
  const names = { workspace: new Names(), kind: new Names(), source: new Names(), tag: new Names() }
  const ids = new Uint8Array(16 * count)
  fields.forEach((d, i) => ids.set(uuidBytesOrThrow(d.id), 16 * i))
  const tagStart = new Int32Array(count + 1)
  fields.forEach((d, i) => (tagStart[i + 1] = tagStart[i]! + d.tags.length))
  const columns: DocumentColumns = {
    count,
    ids,
    active: Uint8Array.from(fields, (d) => (d.status === 'active' ? 1 : 0)),
    pinned: Uint8Array.from(fields, (d) => (d.pinned ? 1 : 0)),
    rating: Int8Array.from(fields, (d) => d.rating),
    workspace: Int32Array.from(fields, (d) => names.workspace.code(d.workspace_id)),
    kind: Int32Array.from(fields, (d) => names.kind.code(d.kind)),
    source: Int32Array.from(fields, (d) => names.source.code(d.source)),
    tagStart,
    tagCodes: Int32Array.from(fields.flatMap((d) => d.tags.map((t) => names.tag.code(t)))),
    occurred: Float64Array.from(fields, (d) => d.occurred_at),
    names: { workspace: names.workspace.list, kind: names.kind.list, source: names.source.list, tag: names.tag.list },
    bytes: 0,
  }
  columns.bytes = columnBytes(columns)
  return columns
}

/**
 * Columns whose document i is document `docs[i]` of `from[parts[i]]` — a merge's documents, picked in id order from
 * the segments it merges — copied array to array, names recoded into the new tables.
 */
export function pickColumns(from: DocumentColumns[], parts: Int32Array, docs: Int32Array): DocumentColumns {
  const count = parts.length
  const names = { workspace: new Names(), kind: new Names(), source: new Names(), tag: new Names() }
  // A name gets its new code when first used, in id order as columnsOf gives them: names only dead documents held go.
  const codes = { workspace: unset(from, 'workspace'), kind: unset(from, 'kind'), source: unset(from, 'source'), tag: unset(from, 'tag') }
  const code = (field: keyof typeof codes, p: number, k: number) => {
    const known = codes[field][p]![k]!
    return known >= 0 ? known : (codes[field][p]![k] = names[field].code(from[p]!.names[field][k]!))
  }
  const columns: DocumentColumns = {
    count,
    ids: new Uint8Array(16 * count),
    active: new Uint8Array(count),
    pinned: new Uint8Array(count),
    rating: new Int8Array(count),
    workspace: new Int32Array(count),
    kind: new Int32Array(count),
    source: new Int32Array(count),
    tagStart: new Int32Array(count + 1),
    tagCodes: new Int32Array(0),
    occurred: new Float64Array(count),
    names: { workspace: names.workspace.list, kind: names.kind.list, source: names.source.list, tag: names.tag.list },
    bytes: 0,
  }
  for (let i = 0; i < count; i++) {
    const [p, d] = [parts[i]!, docs[i]!]
    const c = from[p]!
    columns.ids.set(c.ids.subarray(16 * d, 16 * d + 16), 16 * i)
    columns.active[i] = c.active[d]!
    columns.pinned[i] = c.pinned[d]!
    columns.rating[i] = c.rating[d]!
    columns.workspace[i] = code('workspace', p, c.workspace[d]!)
    columns.kind[i] = code('kind', p, c.kind[d]!)
    columns.source[i] = code('source', p, c.source[d]!)
    columns.occurred[i] = c.occurred[d]!
    columns.tagStart[i + 1] = columns.tagStart[i]! + c.tagStart[d + 1]! - c.tagStart[d]!
  }
  columns.tagCodes = new Int32Array(columns.tagStart[count]!)
  for (let i = 0; i < count; i++) {
    const [p, d] = [parts[i]!, docs[i]!]
    const c = from[p]!
    for (let k = c.tagStart[d]!, at = columns.tagStart[i]!; k < c.tagStart[d + 1]!; k++, at++)
      columns.tagCodes[at] = code('tag', p, c.tagCodes[k]!)
  }
  columns.bytes = columnBytes(columns)
  return columns
}

const unset = (from: DocumentColumns[], field: keyof DocumentColumns['names']) =>
  from.map((c) => new Int32Array(c.names[field].length).fill(-1))

/** Compares document a of `x` with document b of `y` by id (their uuids' bytes, as ids sort). */
export function compareIds(x: DocumentColumns, a: number, y: DocumentColumns, b: number): number {
  for (let i = 0; i < 16; i++) {
    const diff = x.ids[16 * a + i]! - y.ids[16 * b + i]!
    if (diff) return diff
  }
  return 0
}

function columnBytes(c: DocumentColumns): number {
  const arrays = [c.ids, c.active, c.pinned, c.rating, c.workspace, c.kind, c.source, c.tagStart, c.tagCodes, c.occurred]
  let bytes = arrays.reduce((sum, a) => sum + a.byteLength, 0)
  for (const list of Object.values(c.names)) for (const name of list) bytes += 2 * name.length
  return bytes
}

/** Document d's fields as they were read (a merge rebuilds a segment from its live documents). */
export function fieldsOf(c: DocumentColumns, d: number): DocumentFields {
  const tags: string[] = []
  for (let i = c.tagStart[d]!; i < c.tagStart[d + 1]!; i++) tags.push(c.names.tag[c.tagCodes[i]!]!)
  return {
    id: idOf(c, d),
    // Only whether a document is active matters to ranking.
    status: c.active[d] ? 'active' : 'inactive',
    workspace_id: c.names.workspace[c.workspace[d]!]!,
    kind: c.names.kind[c.kind[d]!]!,
    source: c.names.source[c.source[d]!]!,
    tags,
    pinned: c.pinned[d] === 1,
    rating: c.rating[d]!,
    occurred_at: c.occurred[d]!,
  }
}

export const boostAt = (c: DocumentColumns, d: number) => boostOf(c.pinned[d]!, c.rating[d]!)

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'))
export function idOf(c: DocumentColumns, d: number): string {
  const h = (i: number) => HEX[c.ids[16 * d + i]!]
  let s = ''
  for (let i = 0; i < 16; i++) s += (i === 4 || i === 6 || i === 8 || i === 10 ? '-' : '') + h(i)
  return s
}

export function uuidBytes(id: string): Uint8Array | null {
  const hex = id.toLowerCase().replace(/-/g, '')
  if (!/^[0-9a-f]{32}$/.test(hex)) return null
  return Uint8Array.from({ length: 16 }, (_, i) => parseInt(hex.slice(2 * i, 2 * i + 2), 16))
}

function uuidBytesOrThrow(id: string): Uint8Array {
  const bytes = uuidBytes(id)
  if (!bytes) throw new Error(`document id ${id} is not a uuid`)
  return bytes
}

/** The document number of `id`, or -1 (ids are sorted: a binary search). */
export function documentOf(c: DocumentColumns, id: string): number {
  const key = uuidBytes(id)
  if (!key) return -1
  let [lo, hi] = [0, c.count]
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    let diff = 0
    for (let i = 0; i < 16 && diff === 0; i++) diff = c.ids[16 * mid + i]! - key[i]!
    if (diff === 0) return mid
    if (diff < 0) lo = mid + 1
    else hi = mid
  }
  return -1
}

/**
 * The filter as a test of a document number, documents marked `dead` failing it; null when no document can pass
 * (a name the columns do not hold). The same conditions as filterSql.
 */
export function filterTest(c: DocumentColumns, filter: DocumentFilter, dead: Uint8Array | null): ((d: number) => boolean) | null {
  const code = (names: string[], name: string | undefined) => (name === undefined ? -2 : names.indexOf(name))
  const [workspace, kind, source, tag] = [
    code(c.names.workspace, filter.workspaceId),
    code(c.names.kind, filter.kind),
    code(c.names.source, filter.source),
    code(c.names.tag, filter.tag),
  ]
  if (workspace === -1 || kind === -1 || source === -1 || tag === -1) return null
  const only = filter.onlyDocument === undefined ? -2 : documentOf(c, filter.onlyDocument)
  if (only === -1 || (only >= 0 && dead?.[only])) return null
  const excluded = filter.excludeDocument === undefined ? -1 : documentOf(c, filter.excludeDocument)
  const timed = filter.after !== undefined || filter.before !== undefined
  const hasTag = (d: number) => {
    for (let i = c.tagStart[d]!; i < c.tagStart[d + 1]!; i++) if (c.tagCodes[i] === tag) return true
    return false
  }
  return (d) =>
    !dead?.[d] &&
    (only === -2 ? c.active[d] === 1 : d === only) &&
    d !== excluded &&
    (workspace === -2 || c.workspace[d] === workspace) &&
    (kind === -2 || c.kind[d] === kind) &&
    (source === -2 || c.source[d] === source) &&
    (tag === -2 || hasTag(d)) &&
    (!timed || withinTime(c.occurred[d]!, filter))
}
