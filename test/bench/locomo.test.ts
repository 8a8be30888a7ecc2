// The LoCoMo benchmark's reading of the dataset and its session ranking: locomo-dev.json read as the benchmark
// reads any file in LoCoMo's layout gives exactly the turns and questions the dataset's own jsonl files list.
import { describe, expect, test } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { ndcgAt, recallAt } from './metrics'
import { LOCOMO_DEV, loadLocomo, normaliseEvidence, sessionRanking, sessionTime } from './locomo'

const jsonl = (name: string) =>
  readFileSync(join(dirname(LOCOMO_DEV), name), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))

describe.skipIf(!existsSync(LOCOMO_DEV))('the development half of LoCoMo, read from its own layout', () => {
  const { conversations, questions, adversarial, withoutEvidence } = loadLocomo()

  test('every turn is the one turns.jsonl lists: its id, session, title and text', () => {
    const turns = conversations.flatMap((c) =>
      c.turns.map((t) => ({ id: t.id, conv: c.id, session: t.session, title: `${t.speaker} · ${t.date}`, body: t.text })),
    )
    expect(turns).toEqual(jsonl('turns.jsonl'))
  })

  test('the questions with evidence are those of questions.jsonl, evidence normalised; the adversarial and the evidence-less left out', () => {
    const expected = jsonl('questions.jsonl').map(({ answer: _answer, ...q }) => q)
    expect(questions).toEqual(expected)
    expect(adversarial).toBe(237)
    expect(withoutEvidence).toBe(2)
  })
})

test('evidence ids are normalised as the dataset writes them, and what names no turn is dropped', () => {
  expect(normaliseEvidence('D:11:26')).toEqual(['D11:26'])
  expect(normaliseEvidence('D30:05')).toEqual(['D30:5'])
  expect(normaliseEvidence('D8:6; D9:17')).toEqual(['D8:6', 'D9:17'])
  expect(normaliseEvidence('D')).toEqual([])
})

test('a session counts once, at the rank of its first result', () => {
  const sessionOf = new Map([
    ['a1', 'A'],
    ['a2', 'A'],
    ['b1', 'B'],
  ])
  const ranked = sessionRanking(['a1', 'a2', 'b1'], sessionOf)
  expect(ranked).toEqual(['A', '', 'B'])
  expect(recallAt(ranked, new Set(['B']), 2)).toBe(0)
  expect(recallAt(ranked, new Set(['A', 'B']), 3)).toBe(1)
  // B's first result is third: discounted by log2(4), not by log2(3) as the second distinct session.
  expect(ndcgAt(ranked, new Set(['B']), 10)).toBeCloseTo(1 / Math.log2(4))
})

test("a session's date as LoCoMo writes it is the time its messages were said; anything else is no time", () => {
  expect(sessionTime('1:56 pm on 8 May, 2023')).toBe('2023-05-08T13:56:00.000Z')
  expect(sessionTime('12:09 am on 13 September, 2023')).toBe('2023-09-13T00:09:00.000Z')
  expect(sessionTime('12:30 pm on 1 January, 2024')).toBe('2024-01-01T12:30:00.000Z')
  expect(sessionTime('8 May 2023')).toBeNull()
  expect(sessionTime('1:56 pm on 8 Mai, 2023')).toBeNull()
})
