// diffWords: the runs rebuild both texts, a change shows whole words, a replaced phrase reads as one deletion and
// one insertion, and two long unrelated texts stay within a bounded table.
import { describe, expect, test } from 'bun:test'
import { type DiffRun, diffWords, MAX_CELLS } from './word-diff'

const side = (runs: DiffRun[], keep: 'delete' | 'insert') =>
  runs
    .filter((r) => r.op === 'equal' || r.op === keep)
    .map((r) => r.text)
    .join('')

/** Every diff must rebuild its two texts and never repeat an op in two adjacent runs or leave an empty run. */
function checked(a: string, b: string): DiffRun[] {
  const runs = diffWords(a, b)
  expect(side(runs, 'delete')).toBe(a)
  expect(side(runs, 'insert')).toBe(b)
  for (let i = 1; i < runs.length; i++) expect(runs[i]!.op).not.toBe(runs[i - 1]!.op)
  for (const r of runs) expect(r.text).not.toBe('')
  return runs
}

describe('diffWords', () => {
  test('the same text is one equal run; empty texts give no runs or one change', () => {
    expect(checked('Standup is at nine.', 'Standup is at nine.')).toEqual([{ op: 'equal', text: 'Standup is at nine.' }])
    expect(checked('', '')).toEqual([])
    expect(checked('', 'new')).toEqual([{ op: 'insert', text: 'new' }])
    expect(checked('old', '')).toEqual([{ op: 'delete', text: 'old' }])
  })

  test('a changed word is deleted then inserted, whole, between the words that stayed', () => {
    expect(checked('Standup is at nine.', 'Standup is at ten.')).toEqual([
      { op: 'equal', text: 'Standup is at ' },
      { op: 'delete', text: 'nine.' },
      { op: 'insert', text: 'ten.' },
    ])
  })

  test('an added and a removed word show as such', () => {
    expect(checked('We deploy on Fridays', 'We never deploy on Fridays')).toEqual([
      { op: 'equal', text: 'We ' },
      { op: 'insert', text: 'never ' },
      { op: 'equal', text: 'deploy on Fridays' },
    ])
    expect(checked('The API key is stored in vault', 'The key is stored in vault')).toEqual([
      { op: 'equal', text: 'The ' },
      { op: 'delete', text: 'API ' },
      { op: 'equal', text: 'key is stored in vault' },
    ])
  })

  test('a replaced phrase is one deletion and one insertion, not words interleaved round the spaces', () => {
    expect(checked('Meet in the blue room at noon', 'Meet in the large hall at noon')).toEqual([
      { op: 'equal', text: 'Meet in the ' },
      { op: 'delete', text: 'blue room' },
      { op: 'insert', text: 'large hall' },
      { op: 'equal', text: ' at noon' },
    ])
  })

  test('line breaks and repeated spaces are kept as written', () => {
    checked('First line\n\nSecond  line', 'First line\nSecond line\n- a list item')
    checked('  leading and trailing  ', 'leading and trailing')
  })

  test('words keep their case and punctuation: "Nine." and "nine" differ', () => {
    const runs = checked('at Nine.', 'at nine')
    expect(runs.filter((r) => r.op !== 'equal').map((r) => r.text)).toEqual(['Nine.', 'nine'])
  })

  test('random edits always rebuild both texts', () => {
    const words = ['alpha', 'beta', 'gamma', 'delta', 'the', 'a', '\n', 'x.']
    let seed = 7
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed % n
    }
    const text = (n: number) => Array.from({ length: n }, () => words[rand(words.length)]).join(rand(3) ? ' ' : '  ')
    for (let k = 0; k < 200; k++) checked(text(rand(30)), text(rand(30)))
  })

  test('two long texts that share nothing in the middle stay bounded: one deletion, one insertion between the common ends', () => {
    const words = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(' ')
    const n = Math.ceil(Math.sqrt(MAX_CELLS)) // each side's tokens (words and spaces) exceed the table's bound
    const runs = checked(`Start. ${words('old', n)} End.`, `Start. ${words('new', n)} End.`)
    expect(runs.map((r) => r.op)).toEqual(['equal', 'delete', 'insert', 'equal'])
  })
})
