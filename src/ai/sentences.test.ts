// The sentence splitter behind the extractive answer: a period inside a sentence (an abbreviation, a
// decimal, a file name, a URL, a code span) never ends it; Markdown headings, code fences, tables and rules
// are not sentences; a list item is one, without its marker; wrapped lines are joined.
import { describe, expect, test } from 'bun:test'
import { proseBlocks, sentences } from './sentences'

describe('sentences', () => {
  test('sentences end at . ! or ?; fragments of a word or two are left out', () => {
    expect(sentences('First one is here. Second one too!\nOK. Really? Yes it is')).toEqual([
      'First one is here.',
      'Second one too!',
      'Yes it is',
    ])
  })

  test('a period after a title, inside a number, a version, a file name, an address or a code span does not end the sentence', () => {
    const text =
      'The annual review is with Dr. Lindqvist on 3 March at 10.30. Certificates live in /etc/ssl/fullchain.pem and renew every 60 days. ' +
      'Version v1.2 of the form is at https://example.com/forms/review.html today. Mail ops@example.com with questions. ' +
      'Run `certbot renew. --force` as root. Ask Mr. Smith and Prof. Ng, e.g. before noon. The budget is approx. 3.5 million, see Fig. 3 for details.'
    expect(sentences(text)).toEqual([
      'The annual review is with Dr. Lindqvist on 3 March at 10.30.',
      'Certificates live in /etc/ssl/fullchain.pem and renew every 60 days.',
      'Version v1.2 of the form is at https://example.com/forms/review.html today.',
      'Mail ops@example.com with questions.',
      'Run `certbot renew. --force` as root.',
      'Ask Mr. Smith and Prof. Ng, e.g. before noon.',
      'The budget is approx. 3.5 million, see Fig. 3 for details.',
    ])
  })

  test('a real sentence end after a number, an address or an abbreviation still ends the sentence', () => {
    expect(sentences('Backups are kept for 35 days. Logs are kept at example.com. The team met in the U.S. Then it left.')).toEqual([
      'Backups are kept for 35 days.',
      'Logs are kept at example.com.',
      'The team met in the U.S.',
      'Then it left.',
    ])
    expect(sentences('Bring pens, paper, etc. The room is booked.')).toEqual(['Bring pens, paper, etc.', 'The room is booked.'])
  })

  test('Markdown: headings, code fences, tables and rules are not sentences; list items are, without their markers', () => {
    const text = [
      '# Annual review of the billing team',
      '',
      'The review is on Friday at noon.',
      '',
      '## What to bring to it',
      '- the signed form from last year',
      '* a laptop with the slides',
      '1. Print the agenda first.',
      '2) Book the large room.',
      '- [x] Order the lunch for everyone',
      '> Quoted notes are prose too.',
      '',
      '```sh',
      'cp fullchain.pem /etc/ssl/. # a command, not a sentence',
      '```',
      '',
      '| Item | Owner of the item |',
      '|------|-------|',
      '',
      '---',
      'Setext headings are headings too',
      '=================================',
      'The end of the notes is here.',
    ].join('\n')
    expect(sentences(text)).toEqual([
      'The review is on Friday at noon.',
      'the signed form from last year',
      'a laptop with the slides',
      'Print the agenda first.',
      'Book the large room.',
      'Order the lunch for everyone',
      'Quoted notes are prose too.',
      'The end of the notes is here.',
    ])
  })

  test('a line break ends a sentence, unless the line plainly goes on (wrapped text)', () => {
    expect(sentences('Retention rules for the team\nbackups are kept for 35 days\nLogs are kept for a year')).toEqual([
      'Retention rules for the team backups are kept for 35 days',
      'Logs are kept for a year',
    ])
    expect(sentences('The annual review is with\nDr. Lindqvist on Friday, in\nroom 4. Bring the form.')).toEqual([
      'The annual review is with Dr. Lindqvist on Friday, in room 4.',
      'Bring the form.',
    ])
    expect(sentences('Meet with Dr.\nLindqvist on Friday at noon.')).toEqual(['Meet with Dr. Lindqvist on Friday at noon.'])
    expect(sentences('Status of the backups\nThey run nightly at two.')).toEqual(['Status of the backups', 'They run nightly at two.'])
  })

  test('a list item that wraps stays one item; the next item starts a new one', () => {
    expect(proseBlocks('- backups are kept\n  for 35 days\n- logs for a year')).toEqual(['backups are kept for 35 days', 'logs for a year'])
  })
})
