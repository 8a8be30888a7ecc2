// Excerpts in lists read as text: no '#', '**' or table pipes, whatever Markdown the flattened excerpt carried.
import { expect, test } from 'bun:test'
import { plainExcerpt } from './excerpt'

test.each([
  ['# Quarterly report ## Revenue Sales grew **12%** this quarter.', 'Quarterly report Revenue Sales grew 12% this quarter.'],
  ['| Region | Sales | |---|:---:| | North | 12 | | South | 9 |', 'Region · Sales · North · 12 · South · 9'],
  ['Intro text. | Name | Value | | --- | --- | | a | b…', 'Intro text. · Name · Value · a · b…'],
  ['The plan: **ship on Fri…', 'The plan: ship on Fri…'],
  ['Use `bun test` and [the guide](https://example.com/guide).', 'Use bun test and the guide.'],
  ['Plain words stay as they are.', 'Plain words stay as they are.'],
])('%p reads %p', (excerpt, text) => {
  expect(plainExcerpt(excerpt)).toBe(text)
})
