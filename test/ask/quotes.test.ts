// The built-in answerer over real HTTP: a user whose notes are Markdown full of periods that end nothing
// (Dr., 10.30, v1.2, example.com, fullchain.pem) asks through POST /api/ask and reads back whole sentences,
// each with its [n] at its end; a second source that only shares a word with the question is listed as a
// source but never quoted; `answer_style: detailed` quotes more of what answers.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { addDocuments, answerOf, readAll, savedOf, serve, sourcesOf, type Served } from './ask.fixtures'

let s: Served
beforeAll(async () => {
  s = await serve()
})
afterAll(() => s.stop())

const REVIEW = {
  title: 'Annual review',
  body: [
    '# Annual review',
    '',
    'The annual review is with Dr. Lindqvist on 3 March at 10.30 in room 4. The review form, v1.2, is at https://example.com/forms/review.html for everyone.',
    '',
    '## Before the review',
    '- Bring the signed review form from last year.',
    '- Ask Mr. Smith about the review budget of approx. 3.5 million.',
  ].join('\n'),
}
const CERTS = {
  title: 'TLS renewal',
  body: 'The certificate is in /etc/ssl/fullchain.pem and renews every 60 days. The review of certificates happens yearly.',
}

test('POST /api/ask quotes a whole sentence with its marker at the end, and not the unrelated sentence of a second source', async () => {
  const u = await s.t.signUp()
  const [review, certs] = await addDocuments(s.t, u, [REVIEW, CERTS])
  const all = await readAll(await s.post('/api/ask', { question: 'Who is the annual review with?' }, u.key))

  // Both documents are retrieved (both say "review"); only the one that answers is quoted.
  expect(sourcesOf(all).map((src) => src.document_id)).toEqual([review!.id, certs!.id])
  expect(answerOf(all)).toBe('The annual review is with Dr. Lindqvist on 3 March at 10.30 in room 4 [1].')
  // The conversation keeps exactly what was read.
  const stored = await s.t.json('GET', `/api/conversations/${savedOf(all).id}`, { key: u.key })
  expect(stored.body.messages[1].content).toBe('The annual review is with Dr. Lindqvist on 3 March at 10.30 in room 4 [1].')
})

test('answer_style detailed quotes more of the sentences that answer; neither quotes a heading', async () => {
  const u = await s.t.signUp()
  await addDocuments(s.t, u, [REVIEW, CERTS])
  const question = 'What about the annual review form and budget?'
  const concise = answerOf(await readAll(await s.post('/api/ask', { question }, u.key)))
  expect((await s.t.json('PATCH', '/api/settings', { key: u.key, body: { answer_style: 'detailed' } })).status).toBe(200)
  const detailed = answerOf(await readAll(await s.post('/api/ask', { question }, u.key)))

  const quoted = (answer: string) => answer.split(/(?<=\[\d+\][.!?]?) /)
  expect(quoted(detailed).length).toBeGreaterThan(quoted(concise).length)
  for (const sentence of quoted(concise)) expect(quoted(detailed)).toContain(sentence)
  for (const answer of [concise, detailed]) {
    expect(answer).not.toContain('#')
    expect(answer).not.toMatch(/Before the review \[/)
    // Every marker ends a whole sentence of the note: what precedes it is in the note, up to its full stop.
    for (const sentence of quoted(answer)) expect(REVIEW.body.replace(/^- /gm, '')).toContain(sentence.replace(/ \[1\]\.$/, '.'))
  }
})
