// Learnings from a conversation, as a chat model proposes them: the prompts (propose learnings from messages, then
// judge which known memory each one restates or updates), the calls, and the reading of the model's JSON answers.
// A malformed answer is asked for once more, with what was wrong; a second one is a MalformedAnswer.
import type { LanguageModelV4 } from '@ai-sdk/provider'
import { generateText, type ModelMessage } from 'ai'

/** A message as the model reads it: `ref` is how a learning cites it. */
export interface PromptMessage {
  ref: string
  speaker: string
  /** When it was said, in words ("8 May 2023, 13:56"). */
  when: string
  content: string
}

/** One learning of the model's answer, or why it is not one (a bad kind, no body). */
export type ProposedLearning =
  | { kind: string; title: string; body: string; evidence: string[]; confidence?: number }
  | { invalid: string; title: string | null }

/** A proposed learning beside the known memories search found for it; the model says which one it restates or updates. */
export interface Comparison {
  body: string
  kind: string
  memories: { ref: string; kind: string; title: string; body: string }[]
}

export type Verdict = { verdict: 'new' } | { verdict: 'updates' | 'same'; memory: string }

/** The model answered twice with something that is not the JSON asked for. */
export class MalformedAnswer extends Error {}

/** The text of a message the prompt quotes: a very long message is cut, the prompt stays bounded. */
export const MAX_QUOTED_CHARS = 4_000

const PROPOSE = (kinds: readonly string[]) =>
  [
    'You read a conversation and propose learnings worth remembering about the people in it and their world.',
    `Each learning has a kind: ${kinds.join(', ')} (fact: something true about someone or something; preference: what someone likes ` +
      'or wants; decision: something decided; routine: something done regularly; lesson: something learned from experience).',
    'Write each learning as one self-contained statement a reader understands without the conversation: name the people (never ' +
      '"he" or "I"), and turn relative times ("yesterday", "last year") into dates from the times of the messages.',
    'Propose only what the messages state, only what stays true beyond the conversation (not greetings, small talk or passing ' +
      'moods), and nothing at all when there is nothing durable. Each learning cites, in "evidence", the refs of the messages it rests on.',
    'Messages under "Earlier" were read before: use them to understand the new ones; propose learnings from the new messages.',
    'Answer with JSON only, no prose around it:',
    '{"learnings": [{"kind": "preference", "title": "a short label", "body": "the statement", "evidence": ["m3", "m5"]}]}',
  ].join('\n')

const JUDGE = [
  'Each numbered learning below was just proposed from a conversation; under it are memories already kept that may be about the same thing.',
  'For each learning say whether it is "same" (says what one of the memories says, nothing new), "updates" (is about the same thing as ' +
    'one of the memories but changes or corrects it, so it should replace it), or "new" (neither).',
  'Answer with JSON only, one entry per learning, naming the memory by its ref for "same" and "updates":',
  '{"results": [{"learning": 1, "verdict": "updates", "memory": "k2"}, {"learning": 2, "verdict": "new"}]}',
].join('\n')

const quote = (text: string) => (text.length > MAX_QUOTED_CHARS ? `${text.slice(0, MAX_QUOTED_CHARS)}…` : text)
const line = (m: PromptMessage) => `${m.ref} · ${m.speaker} · ${m.when}: ${quote(m.content).replace(/\s*\n\s*/g, ' ')}`

/** Asks the model for learnings from `messages` (`earlier`: read before, for context). */
export async function proposeLearnings(
  model: LanguageModelV4,
  input: { kinds: readonly string[]; title: string; earlier: PromptMessage[]; messages: PromptMessage[]; signal?: AbortSignal },
): Promise<ProposedLearning[]> {
  const prompt = [
    `Conversation: ${input.title}`,
    ...(input.earlier.length ? ['', 'Earlier:', ...input.earlier.map(line)] : []),
    '',
    'New messages:',
    ...input.messages.map(line),
  ].join('\n')
  return askForJson(model, PROPOSE(input.kinds), prompt, input.signal, (answer) => readLearnings(answer, input.kinds))
}

/** Asks the model which memory each learning restates or updates; a learning it says nothing (valid) about is new. */
export async function judgeAgainstMemories(model: LanguageModelV4, comparisons: Comparison[], signal?: AbortSignal): Promise<Verdict[]> {
  const prompt = comparisons
    .map((c, i) =>
      [
        `Learning ${i + 1} (${c.kind}): ${quote(c.body)}`,
        ...c.memories.map((m) => `  ${m.ref} (${m.kind}) ${m.title}: ${quote(m.body).replace(/\s*\n\s*/g, ' ')}`),
      ].join('\n'),
    )
    .join('\n\n')
  return askForJson(model, JUDGE, prompt, signal, (answer) => readVerdicts(answer, comparisons))
}

/** One call, and one more when the answer cannot be read, told what was wrong with the first. */
async function askForJson<T>(
  model: LanguageModelV4,
  instructions: string,
  prompt: string,
  signal: AbortSignal | undefined,
  read: (answer: unknown) => T,
): Promise<T> {
  const messages: ModelMessage[] = [{ role: 'user', content: prompt }]
  let problem = ''
  for (let attempt = 1; attempt <= 2; attempt++) {
    const { text } = await generateText({ model, instructions, messages, temperature: 0, maxRetries: 1, abortSignal: signal })
    try {
      return read(parseJson(text))
    } catch (error) {
      if (!(error instanceof MalformedAnswer)) throw error
      problem = error.message
      messages.push(
        { role: 'assistant', content: text },
        { role: 'user', content: `That answer could not be read: ${problem}. Answer again with the JSON only.` },
      )
    }
  }
  throw new MalformedAnswer(`the chat model answered malformed output twice (${problem})`)
}

/** The JSON of an answer, allowing the code fence and the stray sentence models put around it. */
function parseJson(text: string): unknown {
  const fenced = text.match(/```(?:json)?\s*([\s\S]*?)```/)
  const body = (fenced?.[1] ?? text).trim()
  const start = body.search(/[[{]/)
  const end = Math.max(body.lastIndexOf('}'), body.lastIndexOf(']'))
  if (start < 0 || end < start) throw new MalformedAnswer('it holds no JSON')
  try {
    return JSON.parse(body.slice(start, end + 1))
  } catch (error) {
    throw new MalformedAnswer(`it is not valid JSON (${(error as Error).message})`)
  }
}

const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '')

function readLearnings(answer: unknown, kinds: readonly string[]): ProposedLearning[] {
  const items = Array.isArray(answer) ? answer : (answer as { learnings?: unknown } | null)?.learnings
  if (!Array.isArray(items)) throw new MalformedAnswer('it has no "learnings" list')
  return items.map((item): ProposedLearning => {
    if (item === null || typeof item !== 'object') return { invalid: 'a learning must be an object', title: null }
    const l = item as Record<string, unknown>
    const [kind, body] = [text(l.kind).toLowerCase(), text(l.body)]
    const title = text(l.title) || null
    if (!kinds.includes(kind)) return { invalid: `kind "${text(l.kind)}" is not one of ${kinds.join(', ')}`, title }
    if (!body) return { invalid: 'a learning needs a body', title }
    const evidence = (Array.isArray(l.evidence) ? l.evidence : [l.evidence]).map(text).filter(Boolean)
    const confidence = typeof l.confidence === 'number' && l.confidence >= 0 && l.confidence <= 1 ? l.confidence : undefined
    return { kind, title: title ?? '', body, evidence, ...(confidence !== undefined ? { confidence } : {}) }
  })
}

function readVerdicts(answer: unknown, comparisons: Comparison[]): Verdict[] {
  const items = Array.isArray(answer) ? answer : (answer as { results?: unknown } | null)?.results
  if (!Array.isArray(items)) throw new MalformedAnswer('it has no "results" list')
  const verdicts: Verdict[] = comparisons.map(() => ({ verdict: 'new' }))
  for (const item of items) {
    const r = (item ?? {}) as Record<string, unknown>
    const i = Number(r.learning) - 1
    const verdict = text(r.verdict).toLowerCase()
    const memory = text(r.memory)
    // A verdict naming no memory shown with that learning says nothing: the learning stays new.
    if (!comparisons[i] || (verdict !== 'same' && verdict !== 'updates')) continue
    if (!comparisons[i].memories.some((m) => m.ref === memory)) continue
    verdicts[i] = { verdict, memory }
  }
  return verdicts
}
