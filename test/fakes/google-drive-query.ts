// The fake Drive's reading of `q` (search-files syntax: `'id' in parents`, `trashed`, `mimeType`/`name` with
// = and !=, `name contains`, not/and/or, parentheses) and of `fields` (partial responses: `a,b(c,d)`, `a/b`, `*`).
// Anything else is refused the way Drive refuses it, so a provider sending an unsupported query fails loudly.

export class DriveQueryError extends Error {
  constructor(
    /** The parameter at fault: `q` or `fields`. */
    readonly location: 'q' | 'fields',
    message: string,
  ) {
    super(message)
  }
}

export interface QueryableFile {
  name: string
  mimeType: string
  parents: string[]
  trashed: boolean
}

export type FilePredicate = (file: QueryableFile) => boolean

type Token = { kind: 'string'; value: string } | { kind: 'word'; value: string } | { kind: 'op'; value: string }

function tokenize(q: string): Token[] {
  const tokens: Token[] = []
  let i = 0
  const invalid = () => new DriveQueryError('q', 'Invalid Value')
  while (i < q.length) {
    const c = q[i]!
    if (/\s/.test(c)) i++
    else if (c === "'") {
      let value = ''
      for (i++; q[i] !== "'"; i++) {
        if (i >= q.length) throw invalid()
        if (q[i] === '\\') i++
        value += q[i]
      }
      i++
      tokens.push({ kind: 'string', value })
    } else if (c === '(' || c === ')' || c === '=') tokens.push({ kind: 'op', value: q[i++]! })
    else if (q.startsWith('!=', i)) {
      tokens.push({ kind: 'op', value: '!=' })
      i += 2
    } else {
      const word = /^[A-Za-z_][\w.]*/.exec(q.slice(i))?.[0]
      if (!word) throw invalid()
      tokens.push({ kind: 'word', value: word })
      i += word.length
    }
  }
  return tokens
}

/** Parses a Drive query into a predicate; `rootId` stands for the `root` alias in `'root' in parents`. */
export function parseQuery(q: string, rootId: string): FilePredicate {
  const tokens = tokenize(q)
  let at = 0
  const invalid = () => new DriveQueryError('q', 'Invalid Value')
  const peek = () => tokens[at]
  const isWord = (t: Token | undefined, w: string) => t?.kind === 'word' && t.value.toLowerCase() === w
  const next = () => {
    const t = tokens[at++]
    if (!t) throw invalid()
    return t
  }

  function or(): FilePredicate {
    const parts = [and()]
    while (isWord(peek(), 'or')) {
      at++
      parts.push(and())
    }
    return parts.length === 1 ? parts[0]! : (f) => parts.some((p) => p(f))
  }
  function and(): FilePredicate {
    const parts = [not()]
    while (isWord(peek(), 'and')) {
      at++
      parts.push(not())
    }
    return parts.length === 1 ? parts[0]! : (f) => parts.every((p) => p(f))
  }
  function not(): FilePredicate {
    if (!isWord(peek(), 'not')) return term()
    at++
    const inner = not()
    return (f) => !inner(f)
  }
  function term(): FilePredicate {
    const t = next()
    if (t.kind === 'op' && t.value === '(') {
      const inner = or()
      const close = next()
      if (close.kind !== 'op' || close.value !== ')') throw invalid()
      return inner
    }
    if (t.kind === 'string') {
      if (!isWord(next(), 'in') || !isWord(next(), 'parents')) throw invalid()
      const parent = t.value === 'root' ? rootId : t.value
      return (f) => f.parents.includes(parent)
    }
    if (t.kind !== 'word') throw invalid()
    const op = next()
    const value = next()
    if (
      t.value === 'trashed' &&
      op.kind === 'op' &&
      (op.value === '=' || op.value === '!=') &&
      (isWord(value, 'true') || isWord(value, 'false'))
    ) {
      const wanted = isWord(value, 'true') === (op.value === '=')
      return (f) => f.trashed === wanted
    }
    if ((t.value === 'mimeType' || t.value === 'name') && value.kind === 'string') {
      const field = t.value
      if (op.kind === 'op' && op.value === '=') return (f) => f[field] === value.value
      if (op.kind === 'op' && op.value === '!=') return (f) => f[field] !== value.value
      if (field === 'name' && isWord(op, 'contains')) return (f) => f.name.includes(value.value)
    }
    throw invalid()
  }

  if (tokens.length === 0) throw invalid()
  const predicate = or()
  if (at !== tokens.length) throw invalid()
  return predicate
}

/** What a resource can answer: a leaf, or a nested resource (arrays of it included). */
export interface FieldSchema {
  [key: string]: FieldSchema | true
}
type Selection = { [key: string]: Selection | true }

export function parseFields(fields: string): Selection {
  const text = fields.replace(/\s+/g, '')
  let i = 0
  const invalid = () => new DriveQueryError('fields', `Invalid field selection ${fields}`)
  function list(): Selection {
    const out: Selection = {}
    do {
      const path: string[] = []
      do {
        const name = /^(\*|[A-Za-z_]\w*)/.exec(text.slice(i))?.[0]
        if (!name) throw invalid()
        path.push(name)
        i += name.length
      } while (text[i] === '/' && ++i)
      let leaf: Selection | true = true
      if (text[i] === '(') {
        i++
        leaf = list()
        if (text[i++] !== ')') throw invalid()
      }
      let into = out
      for (const [n, name] of path.entries()) {
        if (n === path.length - 1)
          into[name] = into[name] === true ? true : leaf === true ? true : { ...(into[name] as Selection | undefined), ...leaf }
        else into = (into[name] = into[name] === true ? {} : (into[name] ?? {})) as Selection
      }
    } while (text[i] === ',' && ++i)
    return out
  }
  const selection = list()
  if (i !== text.length) throw invalid()
  return selection
}

/** A field the resource does not have is refused, whether or not this answer would hold it. */
function checkSelection(selection: Selection, schema: FieldSchema) {
  for (const [key, sub] of Object.entries(selection)) {
    if (key === '*') continue
    const known = schema[key]
    if (!known || (sub !== true && known === true)) throw new DriveQueryError('fields', `Invalid field selection ${key}`)
    if (sub !== true && known !== true) checkSelection(sub, known)
  }
}

function pick(value: Record<string, unknown>, selection: Selection): Record<string, unknown> {
  if (selection['*']) return value
  const out: Record<string, unknown> = {}
  for (const [key, sub] of Object.entries(selection)) {
    const v = value[key]
    if (v === undefined) continue
    if (sub === true) out[key] = v
    else out[key] = Array.isArray(v) ? v.map((x) => pick(x as Record<string, unknown>, sub)) : pick(v as Record<string, unknown>, sub)
  }
  return out
}

/** A partial response: only the selected fields of `value`. */
export function project(value: Record<string, unknown>, selection: Selection, schema: FieldSchema): Record<string, unknown> {
  checkSelection(selection, schema)
  return pick(value, selection)
}
