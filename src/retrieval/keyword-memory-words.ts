// A query over a user's in-memory copy, prepared for ranking: each query word as one list of (document, score)
// with its upper bound, and the search's filter as a test of a document number. Shared by the pruned ranking
// and the exhaustive one it must equal (keyword-memory-rank.ts, keyword-memory-exhaustive.ts).
import type { QueryTerm } from './keyword-query'
import { PREFIX_WEIGHT } from './ranking'
import { BLOCK, documentOf, findTerm, prefixRange, tfOf, tfPart, type UserIndex } from './keyword-memory-index'

/** What a search restricts to — the same conditions as its SQL filter: `status = 'active'` and these. */
export interface MemoryFilter {
  workspaceId?: string
  kind?: string
  source?: string
  tag?: string
  excludeDocument?: string
  /** Only this document, whatever its status (a more-like-this query scoring its own document). */
  onlyDocument?: string
}

/** One query word: its documents in order and what each scores for it. */
export interface WordList {
  idx: number
  docs: Int32Array
  /** The word's score in docs[i]: computed from the posting (one form), or kept (several forms, best of them). */
  score: (i: number) => number
  /** Blocks of BLOCK postings: block b ends at document blockLast[b], and no document in it scores above blockUpper(b). */
  blockLast: Int32Array
  blockUpper: (b: number) => number
}

/**
 * The query's words that have postings, in idx order (the order every score is summed in, so the pruned and
 * exhaustive rankings agree to the bit): exact terms at weight 1; the last word's expansions (longer terms under
 * its prefixes that no query word has exactly) at PREFIX_WEIGHT with the df of every document holding the word
 * in any form; each word counted once per document, its best-scoring form.
 */
export function wordLists(index: UserIndex, terms: QueryTerm[]): WordList[] {
  const idf = (df: number) => Math.log(1 + (index.n - df + 0.5) / (df + 0.5))
  const exactTerms = new Set<number>()
  for (const t of terms) if (!t.prefix) exactTerms.add(findTerm(index, t.term))
  const forms = new Map<number, { exact: number[]; prefixed: Set<number> }>()
  const formsOf = (idx: number) => forms.get(idx) ?? forms.set(idx, { exact: [], prefixed: new Set() }).get(idx)!
  for (const t of [...terms].sort((a, b) => a.idx - b.idx)) {
    if (!t.prefix) {
      const term = findTerm(index, t.term)
      if (term >= 0) formsOf(t.idx).exact.push(term)
      continue
    }
    const [from, to] = prefixRange(index, t.term)
    for (let term = from; term < to; term++) if (!exactTerms.has(term)) formsOf(t.idx).prefixed.add(term)
  }
  const lists: WordList[] = []
  for (const [idx, { exact, prefixed }] of forms) {
    if (exact.length === 1 && prefixed.size === 0) lists.push(termList(index, idx, exact[0]!, idf(postingsOf(index, exact[0]!))))
    else if (exact.length + prefixed.size > 0) lists.push(bestOfForms(index, idx, exact, [...prefixed], idf))
  }
  return lists
}

const postingsOf = (index: UserIndex, term: number) => index.postingAt[term + 1]! - index.postingAt[term]!

function termList(index: UserIndex, idx: number, term: number, weight: number): WordList {
  const [from, to] = [index.postingAt[term]!, index.postingAt[term + 1]!]
  const docs = index.docs.subarray(from, to)
  const { dl, avgdl, blockMaxTf } = index
  const firstBlock = index.blockAt[term]!
  return {
    idx,
    docs,
    score: (i) => weight * tfPart(tfOf(index, from + i), dl[docs[i]!]!, avgdl),
    blockLast: index.blockLast.subarray(firstBlock, index.blockAt[term + 1]!),
    blockUpper: (b) => weight * blockMaxTf[firstBlock + b]!,
  }
}

/** A word with several forms: each document's best form, over the union of their documents (read whole). */
function bestOfForms(index: UserIndex, idx: number, exact: number[], prefixed: number[], idf: (df: number) => number): WordList {
  const best = new Float64Array(index.count).fill(-Infinity)
  const held = new Uint8Array(index.count)
  let holders = 0
  for (const term of [...exact, ...prefixed]) {
    for (let p = index.postingAt[term]!; p < index.postingAt[term + 1]!; p++)
      if (!held[index.docs[p]!]) (held[index.docs[p]!] = 1), holders++
  }
  const wordIdf = idf(holders)
  const forms = [
    ...exact.map((term) => ({ term, weight: idf(postingsOf(index, term)) })),
    ...prefixed.map((term) => ({ term, weight: PREFIX_WEIGHT * wordIdf })),
  ]
  for (const { term, weight } of forms) {
    for (let p = index.postingAt[term]!; p < index.postingAt[term + 1]!; p++) {
      const d = index.docs[p]!
      const s = weight * tfPart(tfOf(index, p), index.dl[d]!, index.avgdl)
      if (best[d]! < s) best[d] = s
    }
  }
  const docs = new Int32Array(holders)
  const scores = new Float64Array(holders)
  const blockLast = new Int32Array(Math.ceil(holders / BLOCK))
  const blockMax = new Float64Array(blockLast.length)
  for (let d = 0, i = 0; d < index.count; d++) {
    if (!held[d]) continue
    const b = Math.floor(i / BLOCK)
    docs[i] = blockLast[b] = d
    scores[i++] = best[d]!
    if (best[d]! > blockMax[b]!) blockMax[b] = best[d]!
  }
  return { idx, docs, score: (j) => scores[j]!, blockLast, blockUpper: (b) => blockMax[b]! }
}

/** The filter as a test of a document number; null when no document can pass it (a name the copy does not hold). */
export function documentTest(index: UserIndex, filter: MemoryFilter): ((d: number) => boolean) | null {
  const code = (names: string[], name: string | undefined) => (name === undefined ? -2 : names.indexOf(name))
  const [workspace, kind, source, tag] = [
    code(index.names.workspace, filter.workspaceId),
    code(index.names.kind, filter.kind),
    code(index.names.source, filter.source),
    code(index.names.tag, filter.tag),
  ]
  if (workspace === -1 || kind === -1 || source === -1 || tag === -1) return null
  const only = filter.onlyDocument === undefined ? -2 : documentOf(index, filter.onlyDocument)
  if (only === -1) return null
  const excluded = filter.excludeDocument === undefined ? -1 : documentOf(index, filter.excludeDocument)
  const hasTag = (d: number) => {
    for (let i = index.tagStart[d]!; i < index.tagStart[d + 1]!; i++) if (index.tagCodes[i] === tag) return true
    return false
  }
  return (d) =>
    (only === -2 ? index.active[d] === 1 : d === only) &&
    d !== excluded &&
    (workspace === -2 || index.workspace[d] === workspace) &&
    (kind === -2 || index.kind[d] === kind) &&
    (source === -2 || index.source[d] === source) &&
    (tag === -2 || hasTag(d))
}
