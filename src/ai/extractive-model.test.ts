// The extractive answerer, pure logic: its answers quote the cited passage sentence for sentence, pick the
// sentences that answer the question, say plainly when nothing does, and never vary; as an AI SDK model it
// answers from the sources block, and with a `search` tool it searches before answering.
import { describe, expect, test } from 'bun:test'
import { generateText, streamText, tool } from 'ai'
import { z } from 'zod'
import { asksWhen, composeAnswer, extractiveModel, limitTokens, NO_ANSWER, stems } from './extractive-model'
import { sentences } from './sentences'
import { groundingInstructions, quoteMessage } from './grounding'

const passages = [
  {
    index: 1,
    text: 'Backups of the billing database run nightly at 02:00 UTC. They are kept for 35 days in a separate region.\nRestores are rehearsed every quarter by the on-call engineer.',
  },
  { index: 2, text: 'The office coffee machine is descaled on Mondays. Nobody remembers who bought it.' },
  { index: 3, text: 'Billing invoices are emailed on the first day of each month! Late invoices are chased after 14 days.' },
]

/** The answer cut at its [n] markers: each quoted sentence with the source it cites. */
function claims(answer: string): { text: string; cites: number }[] {
  const out: { text: string; cites: number }[] = []
  const marker = /\s*\[(\d+)\]\.?\s*/g
  let start = 0
  for (const m of answer.matchAll(marker)) {
    out.push({ text: answer.slice(start, m.index), cites: Number(m[1]) })
    start = m.index! + m[0].length
  }
  // Nothing may follow the last marker: every sentence carries its citation.
  expect(answer.slice(start)).toBe('')
  return out
}

/** The grounding check: every sentence of the answer is a sentence of the passage it cites. */
function expectGrounded(answer: string, given: { index: number; text: string }[]) {
  const found = claims(answer)
  expect(found.length).toBeGreaterThan(0)
  for (const claim of found) {
    const passage = given.find((p) => p.index === claim.cites)
    expect({ claim, cites: passage ? 'a given passage' : 'nothing' }).toEqual({ claim, cites: 'a given passage' })
    expect(claim.text.length).toBeGreaterThan(0)
    // The quoted text, its closing punctuation aside, is one whole sentence of that passage.
    expect(sentences(passage!.text).some((s) => s === claim.text || s.slice(0, -1) === claim.text)).toBe(true)
  }
}

describe('composeAnswer', () => {
  test('every sentence of the answer is a sentence of the passage it cites', () => {
    for (const question of [
      'How long are billing backups kept?',
      'When are invoices emailed?',
      'Who rehearses restores?',
      'billing',
      'What happens on Mondays?',
    ]) {
      const answer = composeAnswer(question, passages)
      expect({ question, answer }).not.toEqual({ question, answer: NO_ANSWER })
      expectGrounded(answer, passages)
    }
  })

  test('answers with the sentences about the question, not the rest of the passage', () => {
    const answer = composeAnswer('How long are backups kept?', passages)
    expect(answer).toContain('They are kept for 35 days in a separate region [1].')
    expect(answer).not.toContain('coffee')
    expect(answer).not.toContain('invoices')

    const invoices = composeAnswer('When are invoices emailed?', passages)
    expect(invoices).toContain('Billing invoices are emailed on the first day of each month! [3]')
    expect(invoices).not.toContain('Backups')
  })

  test('the most relevant sentences win, at most three (six when detailed), read in source order', () => {
    const many = Array.from({ length: 8 }, (_, i) => ({ index: i + 1, text: `Deploy rule number ${i + 1} applies to deploys on staging.` }))
    for (const [style, max] of [
      ['concise', 3],
      ['detailed', 6],
    ] as const) {
      const cited = claims(composeAnswer('deploy rules for staging', many, style)).map((c) => c.cites)
      expect(cited).toHaveLength(max)
      expect(cited).toEqual([...cited].sort((a, b) => a - b))
    }
  })

  test('a sentence found in two passages is quoted once', () => {
    const twice = [
      { index: 1, text: 'The release train leaves every Tuesday.' },
      { index: 2, text: 'The release train leaves every Tuesday.' },
    ]
    expect(composeAnswer('When does the release train leave?', twice)).toBe('The release train leaves every Tuesday [1].')
  })

  test('returns NO_ANSWER when nothing in the passages matches the question', () => {
    expect(composeAnswer('What is the capital of Mongolia?', passages)).toBe(NO_ANSWER)
    // No passages, or a question made only of stop words, cannot be answered either.
    expect(composeAnswer('How long are backups kept?', [])).toBe(NO_ANSWER)
    expect(composeAnswer('What is it and who was there?', passages)).toBe(NO_ANSWER)
    expect(composeAnswer('   ', passages)).toBe(NO_ANSWER)
  })

  test('is deterministic: the same answer every time, whatever order the passages are given in', () => {
    const question = 'billing backups and invoices'
    const first = composeAnswer(question, passages)
    for (let i = 0; i < 5; i++) expect(composeAnswer(question, passages)).toBe(first)
    expect(composeAnswer(question, [...passages].reverse())).toBe(first)
    expect(composeAnswer(question, [passages[2]!, passages[0]!, passages[1]!])).toBe(first)
  })
})

const REVIEW = {
  index: 1,
  text: [
    '# Annual review',
    '',
    'The annual review is with Dr. Lindqvist on 3 March at 10.30. The form, v1.2, is at https://example.com/forms/review.html for everyone.',
    '',
    '## Before the review',
    '- Bring the signed form, e.g. the one from last year.',
    '- Ask Mr. Smith about the review budget of approx. 3.5 million.',
    '```',
    'review. annual. The annual review script is not prose.',
    '```',
  ].join('\n'),
}
const CERTS = {
  index: 2,
  text: 'The TLS certificate is in /etc/ssl/fullchain.pem and renews every 60 days. The review of certificates happens yearly. Run `certbot renew. --force` to renew it by hand.',
}

describe('quoting whole sentences', () => {
  test('a period inside a sentence (a title, a time, a version, a file name, an address) never splits the quote: the marker comes at its end', () => {
    expect(composeAnswer('Who is the annual review with?', [REVIEW, CERTS])).toBe(
      'The annual review is with Dr. Lindqvist on 3 March at 10.30 [1].',
    )
    expect(composeAnswer('Where is the TLS certificate file?', [REVIEW, CERTS])).toBe(
      'The TLS certificate is in /etc/ssl/fullchain.pem and renews every 60 days [2].',
    )
    expect(composeAnswer('Where is the review form v1.2?', [REVIEW, CERTS])).toBe(
      'The form, v1.2, is at https://example.com/forms/review.html for everyone [1].',
    )
    expect(composeAnswer('How do I renew by hand with certbot?', [REVIEW, CERTS])).toBe(
      'Run `certbot renew. --force` to renew it by hand [2].',
    )
    expect(composeAnswer('What is the budget, and who knows it?', [REVIEW, CERTS])).toBe(
      'Ask Mr. Smith about the review budget of approx. 3.5 million [1].',
    )
  })

  test('no marker ever sits inside a sentence, whatever is asked', () => {
    for (const question of [
      'annual review',
      'review form',
      'certificate renew',
      'review budget Smith',
      'What happens yearly?',
      'Dr Lindqvist',
    ]) {
      for (const style of ['concise', 'detailed'] as const) {
        const answer = composeAnswer(question, [REVIEW, CERTS], style)
        expect({ question, answer }).not.toEqual({ question, answer: NO_ANSWER })
        // A marker is followed by the end of the answer, or by a period and the next quoted sentence.
        for (const m of answer.matchAll(/\[\d+\]/g))
          expect({ question, after: answer.slice(m.index! + m[0].length) }).toEqual({
            question,
            after: expect.stringMatching(/^(?:\.?$|\.? [A-Z`])/),
          })
        expect(answer).not.toMatch(/\b(?:Dr|Mr|v1|example|fullchain|10|3) \[\d+\]\. [A-Za-z0-9]/)
        expectGrounded(answer, [REVIEW, CERTS])
      }
    }
  })

  test('headings and code blocks are never quoted; a list item is quoted without its marker', () => {
    for (const style of ['concise', 'detailed'] as const) {
      const answer = composeAnswer('What is the annual review? What to do before the review?', [REVIEW], style)
      expect(answer).not.toContain('#')
      expect(answer).not.toMatch(/Annual review \[|Before the review \[/)
      expect(answer).not.toContain('script')
    }
    expect(composeAnswer('What should I bring, the signed form?', [REVIEW])).toBe('Bring the signed form, e.g. the one from last year [1].')
  })

  test('a sentence of a second source that only shares a word with the question is not added', () => {
    // "The review of certificates happens yearly." shares "review", and nothing the question is about.
    for (const style of ['concise', 'detailed'] as const)
      expect(composeAnswer('Who is the annual review with?', [REVIEW, CERTS], style)).not.toContain('[2]')
  })

  test('the next sentence of the same source is quoted when it answers a part of the question the first does not', () => {
    expect(composeAnswer('How long are billing backups kept?', passages)).toBe(
      'Backups of the billing database run nightly at 02:00 UTC [1]. They are kept for 35 days in a separate region [1].',
    )
  })

  test('detailed quotes more of the sentences that answer, including every concise one', () => {
    const notes = [
      { index: 1, text: 'Billing backups run nightly at two. Billing backups are kept for 35 days. The office plant needs water.' },
      { index: 2, text: 'Restores of billing backups are rehearsed every quarter. Billing backup restores take forty minutes.' },
      { index: 3, text: 'Backups of photos are kept for ten years. Failed billing jobs page the on-call engineer.' },
    ]
    const concise = claims(composeAnswer('What happens to billing backups?', notes, 'concise'))
    const detailed = claims(composeAnswer('What happens to billing backups?', notes, 'detailed'))
    expect(concise.length).toBeGreaterThan(0)
    expect(detailed.length).toBeGreaterThan(concise.length)
    for (const c of concise) expect(detailed).toContainEqual(c)
    // Only sentences about the question, in either style.
    for (const c of detailed) expect(c.text).not.toContain('plant')
  })

  test('a sentence keeps its own closing mark when it is more than a period; the marker follows it', () => {
    const text = 'Is the review on Friday? He said "the review moves." Bring pens, paper for the review, etc.'
    expect(composeAnswer('Is the review on Friday?', [{ index: 1, text }])).toBe('Is the review on Friday? [1]')
    expect(composeAnswer('the review moves', [{ index: 1, text }])).toBe('He said "the review moves." [1]')
    expect(composeAnswer('pens and paper for the review', [{ index: 1, text }])).toBe('Bring pens, paper for the review, etc. [1]')
  })
})

describe('stems', () => {
  test('a list item is quoted without its marker; the best-matching line comes first', () => {
    expect(
      composeAnswer('How long are logs kept?', [{ index: 1, text: '- logs are kept for a year\n- backups are kept for 35 days' }]),
    ).toBe('logs are kept for a year [1].')
  })

  test('-ing and plain plurals meet their stem; stop words and case do not count', () => {
    expect(stems('testing')).toEqual(stems('tests'))
    expect(stems('backups')).toEqual(stems('backup'))
    expect(stems('What is THE plan for the Backups?')).toEqual(['plan', 'backup'])
  })

  // DEFECT (src/ai/extractive-model.ts, stems): "-es" is cut from words whose singular ends in "e", so
  // "vaccines" → "vaccin" but "vaccine" → "vaccine" (the doc comment promises they match); likewise
  // invoice/invoices, rule/rules, release/releases. A question in the singular misses the plural sentence.
  // Remove `.failing` once fixed.
  test('"vaccines" matches "vaccine" (as the doc comment says), and an answer is found across them', () => {
    expect(stems('Vaccines')).toEqual(stems('vaccine'))
    expect(stems('invoices')).toEqual(stems('invoice'))
    expect(composeAnswer('Which vaccine is given?', [{ index: 1, text: 'Vaccines against measles are scheduled at twelve months.' }])).toBe(
      'Vaccines against measles are scheduled at twelve months [1].',
    )
  })
})

/** Runs the model through the AI SDK the way ask does; the text it streams and its tool calls. */
async function run(options: Parameters<typeof streamText>[0]) {
  const result = streamText(options)
  let text = ''
  const calls: { toolName: string; input: unknown }[] = []
  const deltas: string[] = []
  for await (const part of result.stream) {
    if (part.type === 'text-delta') {
      text += part.text
      deltas.push(part.text)
    }
    if (part.type === 'tool-call') calls.push({ toolName: part.toolName, input: part.input })
    if (part.type === 'error') throw part.error
  }
  return { text, deltas, calls }
}

describe('extractiveModel, through the AI SDK', () => {
  const sources = passages.map((p) => ({
    index: p.index,
    document_id: crypto.randomUUID(),
    title: `Source ${p.index}`,
    url: null,
    excerpt: p.text,
  }))

  test('answers from the sources block of its instructions, streamed in pieces, grounded', async () => {
    const { text, deltas } = await run({
      model: extractiveModel(),
      instructions: groundingInstructions(sources),
      messages: [{ role: 'user', content: 'How long are billing backups kept?' }],
    })
    expect(deltas.length).toBeGreaterThan(1)
    expect(text).toBe(composeAnswer('How long are billing backups kept?', passages))
    expectGrounded(text, passages)
  })

  test('answers the latest question of a conversation, not an earlier one', async () => {
    const { text } = await run({
      model: extractiveModel(),
      instructions: groundingInstructions(sources),
      messages: [
        { role: 'user', content: 'How long are billing backups kept?' },
        { role: 'assistant', content: 'They are kept for 35 days in a separate region [1].' },
        { role: 'user', content: 'And when are invoices emailed?' },
      ],
    })
    expect(text).toContain('[3]')
    expect(text).not.toContain('35 days')
  })

  test('maxOutputTokens cuts the answer at a word within the limit (four characters a token) and finishes with length; without it, stop', async () => {
    const call = {
      model: extractiveModel(),
      instructions: groundingInstructions(sources),
      messages: [{ role: 'user' as const, content: 'How long are billing backups kept?' }],
    }
    const whole = await generateText(call)
    const cut = await generateText({ ...call, maxOutputTokens: 5 })
    expect(whole.finishReason).toBe('stop')
    expect(cut.finishReason).toBe('length')
    expect(cut.text.length).toBeLessThanOrEqual(20)
    expect(whole.text.startsWith(cut.text)).toBe(true)
    expect(whole.text[cut.text.length]).toBe(' ')
    expect(cut.usage.outputTokens).toBeLessThanOrEqual(5)
    expect(limitTokens('a short answer', 100)).toEqual({ text: 'a short answer', cut: false })
    expect(limitTokens('unbrokenwordthatislong', 2)).toEqual({ text: 'unbroken', cut: true })
  })

  test('with no sources it says it found nothing', async () => {
    const { text } = await run({
      model: extractiveModel(),
      instructions: groundingInstructions([]),
      messages: [{ role: 'user', content: 'How long are backups kept?' }],
    })
    expect(text).toBe(NO_ANSWER)
  })

  test('given a search tool, it searches for the question first, then answers from the results', async () => {
    const searched: string[] = []
    const search = tool({
      inputSchema: z.object({ query: z.string() }),
      execute: async ({ query }) => {
        searched.push(query)
        return { results: passages.map((p) => ({ index: p.index, title: `Source ${p.index}`, text: p.text })) }
      },
    })
    const { text, calls } = await run({
      model: extractiveModel(),
      messages: [{ role: 'user', content: 'When are billing invoices emailed?' }],
      tools: { search },
      stopWhen: () => false,
    })
    expect(calls).toEqual([{ toolName: 'search', input: { query: 'When are billing invoices emailed?' } }])
    expect(searched).toEqual(['When are billing invoices emailed?'])
    expect(text).toContain('Billing invoices are emailed on the first day of each month! [3]')
    expectGrounded(text, passages)
  })

  test('a search that finds nothing gives the no-answer reply, not another search', async () => {
    let searches = 0
    const search = tool({
      inputSchema: z.object({ query: z.string() }),
      execute: async () => {
        searches++
        return { results: [] }
      },
    })
    const { text } = await run({
      model: extractiveModel(),
      messages: [{ role: 'user', content: 'Where is the spare key?' }],
      tools: { search },
      stopWhen: () => false,
    })
    expect(searches).toBe(1)
    expect(text).toBe(NO_ANSWER)
  })

  test('stops before doing anything once its call is aborted', async () => {
    const abort = new AbortController()
    abort.abort(new Error('client disconnected'))
    const model = extractiveModel()
    await expect(
      model.doStream({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'anything' }] }], abortSignal: abort.signal }),
    ).rejects.toThrow('client disconnected')
  })
})

describe('a conversation, quoted a message a line as "<speaker>, <date>: <text>"', () => {
  const talk = {
    index: 2,
    text: [
      quoteMessage('Caroline', '2023-05-08T21:00:00Z', 'Did you make anything new lately?'),
      quoteMessage('Melanie', '2023-05-09T08:15:00Z', 'Yes, I painted a sunrise over the lake.'),
      quoteMessage('Caroline', '2023-05-09T08:16:00Z', 'That sounds lovely, send me a photo.'),
    ].join('\n'),
  }

  test('asked when, the answer is the date of the line that says it: no other date, none made up', () => {
    expect(composeAnswer('When did Melanie paint a sunrise?', [passages[1]!, talk])).toBe(
      'On 9 May 2023, Melanie said: Yes, I painted a sunrise over the lake [2].',
    )
    expect(composeAnswer('When did Caroline ask for a photo?', [talk])).toBe(
      'On 9 May 2023, Caroline said: That sounds lovely, send me a photo [2].',
    )
  })

  test('asked something else, a line is quoted with who said it and when', () => {
    expect(composeAnswer('What did Melanie paint over the lake?', [talk])).toBe(
      'Melanie, 9 May 2023: Yes, I painted a sunrise over the lake [2].',
    )
  })

  test('a passage that is no conversation answers a when-question as before: no date is added', () => {
    expect(composeAnswer('When are invoices emailed?', [passages[2]!, talk])).toBe(
      'Billing invoices are emailed on the first day of each month! [3]',
    )
  })

  test('when-questions are told from others', () => {
    for (const q of [
      'When did Melanie paint a sunrise?',
      'what day was the party',
      'Which year did they move?',
      'Since when is she vegan?',
    ])
      expect({ q, when: asksWhen(q) }).toEqual({ q, when: true })
    for (const q of ['Where did Melanie go?', 'Whence the name?', 'Who paints sunrises?'])
      expect({ q, when: asksWhen(q) }).toEqual({ q, when: false })
  })
})
