// A word-level diff of two texts: the longest common subsequence over word and whitespace tokens, as runs of
// equal, deleted and inserted text. Generic (plain strings in, runs out): the review queue's supersede view and
// a document's history both show one.

export type DiffOp = 'equal' | 'insert' | 'delete'
export interface DiffRun {
  op: DiffOp
  text: string
}

/** Tokens: runs of non-space (a word with its punctuation) and runs of whitespace, so the runs join back to the text. */
const tokenize = (text: string): string[] => text.match(/\s+|\S+/g) ?? []

/** Cells of the LCS table past which the changed middle is shown as one deletion and one insertion: the table
 * is (n+1)·(m+1) numbers, so two texts of some 1,400 changed words each stay within a few megabytes. */
export const MAX_CELLS = 2_000_000

/**
 * The runs that turn `a` into `b`: joining the equal and delete runs gives `a`, the equal and insert runs give `b`.
 * Adjacent runs never share an op; where text changes, its deletion comes before its insertion.
 */
export function diffWords(a: string, b: string): DiffRun[] {
  const x = tokenize(a)
  const y = tokenize(b)
  // The common start and end cost nothing to match and keep the table small.
  let start = 0
  while (start < x.length && start < y.length && x[start] === y[start]) start++
  let end = 0
  while (end < x.length - start && end < y.length - start && x[x.length - 1 - end] === y[y.length - 1 - end]) end++
  const xs = x.slice(start, x.length - end)
  const ys = y.slice(start, y.length - end)

  const out: DiffRun[] = []
  const push = (op: DiffOp, text: string) => {
    if (!text) return
    const last = out[out.length - 1]
    if (last && last.op === op) last.text += text
    else out.push({ op, text })
  }
  push('equal', x.slice(0, start).join(''))
  for (const run of middle(xs, ys)) push(run.op, run.text)
  push('equal', x.slice(x.length - end).join(''))
  return cleanup(out)
}

/** The LCS diff of the changed middle, or the whole of it replaced when the table would be too large. */
function middle(x: string[], y: string[]): DiffRun[] {
  const n = x.length
  const m = y.length
  if (!n || !m || (n + 1) * (m + 1) > MAX_CELLS)
    return [
      { op: 'delete', text: x.join('') },
      { op: 'insert', text: y.join('') },
    ]
  const w = m + 1
  // lcs[i*w + j]: the length of the LCS of x[i..] and y[j..].
  const lcs = new Uint32Array((n + 1) * w)
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i * w + j] = x[i] === y[j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!)
  const runs: DiffRun[] = []
  let deleted = ''
  let inserted = ''
  const flush = () => {
    if (deleted) runs.push({ op: 'delete', text: deleted })
    if (inserted) runs.push({ op: 'insert', text: inserted })
    deleted = inserted = ''
  }
  let i = 0
  let j = 0
  while (i < n || j < m) {
    if (i < n && j < m && x[i] === y[j]) {
      flush()
      runs.push({ op: 'equal', text: x[i]! })
      i++
      j++
    } else if (j >= m || (i < n && lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!)) deleted += x[i++]
    else inserted += y[j++]
  }
  flush()
  return runs
}

/**
 * Reads as a person would: a lone space kept equal between two changes ("old words" → "new text" matching only
 * the space) joins the changes on both sides, so a replaced phrase shows as one deletion and one insertion.
 */
function cleanup(runs: DiffRun[]): DiffRun[] {
  const out: DiffRun[] = []
  for (let k = 0; k < runs.length; k++) {
    const run = runs[k]!
    const changedBefore = k > 0 && runs[k - 1]!.op !== 'equal'
    const changedAfter = k + 1 < runs.length && runs[k + 1]!.op !== 'equal'
    if (run.op === 'equal' && /^\s+$/.test(run.text) && changedBefore && changedAfter) {
      add(out, 'delete', run.text)
      add(out, 'insert', run.text)
    } else add(out, run.op, run.text)
  }
  return out
}

/** Appends to the pending change: a deletion goes before the insertion of the same change, and runs merge. */
function add(out: DiffRun[], op: DiffOp, text: string) {
  const last = out[out.length - 1]
  if (last && last.op === op) {
    last.text += text
    return
  }
  if (op === 'delete' && last?.op === 'insert') {
    const before = out[out.length - 2]
    if (before?.op === 'delete') before.text += text
    else out.splice(out.length - 1, 0, { op, text })
    return
  }
  out.push({ op, text })
}
