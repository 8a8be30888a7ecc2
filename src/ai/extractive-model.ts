// The built-in answerer behind service-rag when no chat model is configured: an AI SDK language model that
// answers from the retrieved passages themselves, quoting their best sentences with [n] citations. It writes
// nothing a source does not say, needs no network, and — given a `search` tool and no results yet — calls
// that tool first, so the agent loop works offline too. Asked when something happened, it answers with the date
// a quoted message was said ("On 8 May 2023, Melanie said: … [1]").
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
} from '@ai-sdk/provider'
import { DETAILED, parseSourcesBlock, readQuote } from './grounding'
import { sentences } from './sentences'

export const NO_ANSWER = 'I found nothing in your documents that answers this.'

interface Passage {
  index: number
  text: string
}

const STOP = new Set(
  'a about above after again all also am an and any are as at be been before being below between both but by can could did do does doing down during each few for from further had has have having he her here hers him his how i if in into is it its itself just me more most my no nor not now of off on once only or other our out over own same she should so some such than that the their them then there these they this those through to too under until up very was we were what when where which while who whom why will with would you your'.split(
    ' ',
  ),
)

/** A light English stem: plurals to singular (vaccines → vaccine, boxes → box, studies → study), -ing and -ed off. */
export function stem(word: string): string {
  let w = word
  if (/ies$/.test(w) && w.length > 4) w = `${w.slice(0, -3)}y`
  else if (/(?:s|x|z|ch|sh)es$/.test(w)) w = w.slice(0, -2)
  else if (/[^su]s$/.test(w) && w.length > 3) w = w.slice(0, -1)
  if (/ing$/.test(w) && w.length > 5) w = w.slice(0, -3)
  else if (/ed$/.test(w) && w.length > 4) w = w.slice(0, -2)
  return w
}

/** Lowercased word stems, stop words dropped: enough to match "vaccines" with "vaccine" and "testing" with "tests". */
export function stems(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 1 && !STOP.has(w)).map(stem)
}

export type AnswerStyle = 'concise' | 'detailed'

/**
 * How many sentences an answer quotes, and how close to the best one (in the weight of question words it
 * holds) another sentence must come to be quoted beside it — unless it adds a question word no quoted
 * sentence holds yet, from a source already quoted (concise) or from any source (detailed).
 */
const STYLES: Record<AnswerStyle, { max: number; near: number; newWordFromAnySource: boolean }> = {
  concise: { max: 3, near: 0.75, newWordFromAnySource: false },
  detailed: { max: 6, near: 0.5, newWordFromAnySource: true },
}

/**
 * The sentences that answer the question, each quoted whole with the [n] of its passage. A sentence is a
 * candidate when it holds a word of the question; the best one (most question weight for its length) is
 * quoted; another is quoted only if it answers too — it holds nearly as much of the question as the best
 * one, or it adds a word of the question the quoted ones lack, from a source already quoted (the sentence
 * after "Backups run nightly" that says how long they are kept). Deterministic.
 */
export function composeAnswer(question: string, passages: Passage[], style: AnswerStyle = 'concise'): string {
  const wanted = new Set(stems(question))
  const candidates = passages.flatMap((p) =>
    unitsOf(p.text)
      .flatMap((unit) => sentences(unit.text).map((text) => ({ text, said: unit.said })))
      // A message's speaker is part of what it matches ("When did Melanie…" finds what Melanie said); its date is not.
      .map(({ text, said }, position) => ({
        text,
        said,
        index: p.index,
        position,
        terms: new Set(stems(`${text} ${said?.speaker ?? ''}`)),
      })),
  )
  if (wanted.size === 0 || candidates.length === 0) return NO_ANSWER
  // Rarer words among the candidate sentences say more about the answer than common ones.
  const df = new Map<string, number>()
  for (const c of candidates) for (const term of c.terms) if (wanted.has(term)) df.set(term, (df.get(term) ?? 0) + 1)
  const weight = (term: string) => Math.log(1 + candidates.length / df.get(term)!)
  const scored = candidates
    .map((c) => {
      const held = [...c.terms].filter((t) => wanted.has(t))
      const cover = held.reduce((sum, t) => sum + weight(t), 0)
      return { ...c, held, cover, score: cover / Math.sqrt(Math.max(c.terms.size, 4)) }
    })
    .filter((c) => c.cover > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index || a.position - b.position)
  const rule = STYLES[style]
  const chosen: typeof scored = []
  const covered = new Set<string>()
  for (const c of scored) {
    if (chosen.length === rule.max) break
    if (chosen.some((k) => k.text === c.text)) continue
    const best = chosen[0]
    const addsWord = c.held.some((t) => !covered.has(t)) && (rule.newWordFromAnySource || chosen.some((k) => k.index === c.index))
    if (best && c.cover < rule.near * best.cover && !addsWord) continue
    chosen.push(c)
    for (const t of c.held) covered.add(t)
  }
  if (chosen.length === 0) return NO_ANSWER
  // Read in the sources' own order: the best sources first, each one's sentences as it wrote them.
  chosen.sort((a, b) => a.index - b.index || a.position - b.position)
  // Asked when, a sentence of a message answers with the date it was said (the only date it has: none is made up).
  const when = asksWhen(question)
  return chosen
    .map((c) => {
      if (!c.said) return quote(c.text, c.index)
      return quote(when ? `On ${c.said.date}, ${c.said.speaker} said: ${c.text}` : `${c.said.speaker}, ${c.said.date}: ${c.text}`, c.index)
    })
    .join(' ')
}

/** A question about when something happened: "When did…", "What day was…", "Which year…". */
export const asksWhen = (question: string) => /\b(?:when|what (?:date|day|time|year|month)|which (?:date|day|year|month))\b/i.test(question)

/**
 * A passage as the units its sentences are read from: the whole text, or — when it quotes a conversation's messages
 * as grounding.ts writes them, "<speaker>, <date>: <text>" a line — each line, a quoted one with who said it and when.
 */
function unitsOf(text: string): { text: string; said?: { speaker: string; date: string } }[] {
  const lines = text.split('\n')
  if (!lines.some((line) => readQuote(line))) return [{ text }]
  return lines.map((line) => {
    const quoted = readQuote(line)
    return quoted ? { text: quoted.text, said: { speaker: quoted.speaker, date: quoted.date } } : { text: line }
  })
}

/**
 * A sentence with its citation at its end: "… region [1]." — the marker before the closing period, which the
 * sentence keeps when it is more than a period (a "?", a quotation's closing mark, the dot of "etc.").
 * A sentence without closing punctuation (a list item) gets a period after its marker.
 */
export function quote(sentence: string, index: number): string {
  if (/[^.\s]\.$/.test(sentence) && !/(?:^|\s)(?:etc|\p{L})\.$/u.test(sentence)) return `${sentence.slice(0, -1)} [${index}].`
  if (/[.!?…]["'”’)\]]*$/.test(sentence)) return `${sentence} [${index}]`
  return `${sentence} [${index}].`
}

function lastUserText(prompt: LanguageModelV4Prompt): string {
  for (let i = prompt.length - 1; i >= 0; i--) {
    const m = prompt[i]!
    if (m.role === 'user') return m.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join(' ')
  }
  return ''
}

/** Passages in the system prompt's sources block and in the results of tools called since the last user message. */
function passagesOf(prompt: LanguageModelV4Prompt): { passages: Passage[]; toolResults: number } {
  const passages: Passage[] = []
  let toolResults = 0
  const lastUser = prompt.findLastIndex((m) => m.role === 'user')
  prompt.forEach((m, i) => {
    if (m.role === 'system') passages.push(...parseSourcesBlock(m.content))
    if (m.role !== 'tool' || i < lastUser) return
    for (const part of m.content) {
      if (part.type !== 'tool-result') continue
      toolResults++
      if (part.output.type === 'json') passages.push(...passagesInJson(part.output.value))
    }
  })
  return { passages, toolResults }
}

/** Tool results carry `{ index, title?, text | snippet | excerpt | body }` items, alone or in `results`. */
function passagesInJson(value: unknown): Passage[] {
  if (Array.isArray(value)) return value.flatMap(passagesInJson)
  if (!value || typeof value !== 'object') return []
  const v = value as Record<string, unknown>
  if (Array.isArray(v.results)) return passagesInJson(v.results)
  const text = [v.text, v.snippet, v.body, v.excerpt].find((x): x is string => typeof x === 'string' && x.length > 0)
  return typeof v.index === 'number' && text ? [{ index: v.index, text }] : []
}

const usageOf = (input: string, output: string) => ({
  inputTokens: { total: Math.ceil(input.length / 4), noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: Math.ceil(output.length / 4), text: Math.ceil(output.length / 4), reasoning: undefined },
})

/**
 * The answer cut to the caller's `maxOutputTokens` (four characters a token, as usage counts them), at a word
 * boundary when there is one: a limit is honoured and said (`length`), as a model would.
 */
export function limitTokens(text: string, maxTokens: number | undefined): { text: string; cut: boolean } {
  if (maxTokens === undefined || Math.ceil(text.length / 4) <= maxTokens) return { text, cut: false }
  const head = text.slice(0, maxTokens * 4)
  const space = head.lastIndexOf(' ')
  return { text: space > 0 ? head.slice(0, space) : head, cut: true }
}

type Finish = 'stop' | 'length' | 'tool-calls'

function respond(options: LanguageModelV4CallOptions): { content: LanguageModelV4Content[]; text: string; finish: Finish } {
  const question = lastUserText(options.prompt)
  const { passages, toolResults } = passagesOf(options.prompt)
  const canSearch = options.tools?.some((t) => t.type === 'function' && t.name === 'search')
  if (canSearch && toolResults === 0 && question.trim()) {
    const input = JSON.stringify({ query: question.slice(0, 500) })
    return {
      content: [{ type: 'tool-call', toolCallId: `call_${crypto.randomUUID()}`, toolName: 'search', input }],
      text: input,
      finish: 'tool-calls',
    }
  }
  const detailed = options.prompt.some((m) => m.role === 'system' && m.content.includes(DETAILED))
  const { text, cut } = limitTokens(composeAnswer(question, passages, detailed ? 'detailed' : 'concise'), options.maxOutputTokens)
  return { content: [{ type: 'text', text }], text, finish: cut ? 'length' : 'stop' }
}

export function extractiveModel(): LanguageModelV4 {
  return {
    specificationVersion: 'v4',
    provider: 'service',
    modelId: 'extractive',
    supportedUrls: {},
    async doGenerate(options) {
      options.abortSignal?.throwIfAborted()
      const { content, text, finish } = respond(options)
      return {
        content,
        finishReason: { unified: finish, raw: undefined },
        usage: usageOf(JSON.stringify(options.prompt), text),
        warnings: [],
      }
    },
    async doStream(options) {
      options.abortSignal?.throwIfAborted()
      const { content, text, finish } = respond(options)
      const first = content[0]!
      const parts: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: [] }]
      if (first.type === 'tool-call') parts.push(first)
      else {
        parts.push({ type: 'text-start', id: 'answer' })
        // Word by word, as a model would stream it.
        for (const piece of text.match(/\S+\s*/g) ?? []) parts.push({ type: 'text-delta', id: 'answer', delta: piece })
        parts.push({ type: 'text-end', id: 'answer' })
      }
      parts.push({
        type: 'finish',
        finishReason: { unified: finish, raw: undefined },
        usage: usageOf(JSON.stringify(options.prompt), text),
      })
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const part of parts) controller.enqueue(part)
            controller.close()
          },
        }),
      }
    },
  }
}
