// citedIndexes: every [n] and [n, m] of an answer, once each, in the order cited; other brackets are not citations.
import { describe, expect, test } from 'bun:test'
import { citedIndexes } from './citations'

describe('citedIndexes', () => {
  test('single markers and lists, each number once, in the order first cited', () => {
    expect(citedIndexes('Backups are kept 35 days [2]. Restores are rehearsed [1, 2] quarterly [3].')).toEqual([2, 1, 3])
  })
  test('no markers, words in brackets and links are no citations', () => {
    expect(citedIndexes('Nothing cited here.')).toEqual([])
    expect(citedIndexes('See [the policy](https://example.com) and [note] [1a].')).toEqual([])
  })
})
