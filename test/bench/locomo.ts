// LoCoMo (docs/decisions.md#locomo-scoring): a file in LoCoMo's layout read into conversations and the
// questions that have evidence, the way turns.jsonl and questions.jsonl were derived; the ingest of one
// conversation through the HTTP API; and the session ranking its scores are taken over.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

export const LOCOMO_DEV = join(import.meta.dir, '../../../shared/datasets/locomo-dev/locomo-dev.json')

export interface Turn {
  /** `<sample_id>:<dia_id>`, e.g. conv-26:D1:3 — the id evidence names. */
  id: string
  diaId: string
  /** `<sample_id>:S<n>`. */
  session: string
  speaker: string
  /** The session's date and time as LoCoMo writes it ("1:56 pm on 8 May, 2023"). */
  date: string
  /** The turn's text; a shared photo is written `[shares a photo: <caption>]`. */
  text: string
}
export interface Conversation {
  id: string
  turns: Turn[]
}
export interface Question {
  id: string
  conv: string
  category: number
  question: string
  /** Turn ids, normalised, each naming a turn of the conversation; never empty. */
  evidence: string[]
  /** The distinct sessions of the evidence, in its order. */
  sessions: string[]
}

interface RawTurn {
  speaker: string
  dia_id: string
  text: string
  blip_caption?: string
}
interface RawSample {
  sample_id: string
  conversation: Record<string, unknown>
  qa: { question: string; evidence?: string[]; category: number }[]
}

/** Category 5 is adversarial: the conversation holds no answer, so its evidence is not what a search should find. */
const ADVERSARIAL = 5

/** `D:11:26` → `D11:26`, `D30:05` → `D30:5`; `D8:6; D9:17` is two ids; anything else names no turn (null). */
export function normaliseEvidence(raw: string): string[] {
  return raw
    .split(/[;,\s]+/)
    .filter(Boolean)
    .flatMap((piece) => {
      const m = /^D:?(\d+):(\d+)$/.exec(piece)
      return m ? [`D${Number(m[1])}:${Number(m[2])}`] : []
    })
}

/** Reads a file in LoCoMo's layout (`[{ sample_id, conversation, qa }]`). */
export function loadLocomo(file = LOCOMO_DEV) {
  const samples = JSON.parse(readFileSync(file, 'utf8')) as RawSample[]
  const conversations: Conversation[] = []
  const questions: Question[] = []
  let adversarial = 0
  let withoutEvidence = 0
  for (const sample of samples) {
    const conv = sample.sample_id
    const c = sample.conversation
    const numbers = Object.keys(c)
      .flatMap((k) => /^session_(\d+)$/.exec(k)?.[1] ?? [])
      .map(Number)
      .sort((a, b) => a - b)
    const turns = numbers.flatMap((n) =>
      ((c[`session_${n}`] ?? []) as RawTurn[]).map((t) => ({
        id: `${conv}:${t.dia_id}`,
        diaId: t.dia_id,
        session: `${conv}:S${n}`,
        speaker: t.speaker,
        date: String(c[`session_${n}_date_time`] ?? ''),
        text: [t.text, t.blip_caption ? `[shares a photo: ${t.blip_caption}]` : ''].filter(Boolean).join(' '),
      })),
    )
    conversations.push({ id: conv, turns })
    const sessionOf = new Map(turns.map((t) => [t.id, t.session]))
    sample.qa.forEach((qa, i) => {
      if (qa.category === ADVERSARIAL) return void adversarial++
      const evidence = [...new Set((qa.evidence ?? []).flatMap(normaliseEvidence).map((id) => `${conv}:${id}`))].filter((id) =>
        sessionOf.has(id),
      )
      if (evidence.length === 0) return void withoutEvidence++
      const sessions = [...new Set(evidence.map((id) => sessionOf.get(id)!))]
      questions.push({ id: `${conv}:q${i}`, conv, category: qa.category, question: qa.question, evidence, sessions })
    })
  }
  return { conversations, questions, adversarial, withoutEvidence }
}

/** The most messages a request may send (the bulk limit of documents). */
export const BATCH_LIMIT = 1000

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december']

/** A session's date as LoCoMo writes it ("1:56 pm on 8 May, 2023") as an ISO time (taken as UTC); null when it is not one. */
export function sessionTime(date: string): string | null {
  const m = /^(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([a-z]+),?\s+(\d{4})$/i.exec(date.trim())
  const month = m ? MONTHS.indexOf(m[5]!.toLowerCase()) : -1
  if (!m || month < 0) return null
  const hour = (Number(m[1]) % 12) + (m[3]!.toLowerCase() === 'pm' ? 12 : 0)
  return new Date(Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]))).toISOString()
}

/**
 * Writes one conversation for the user whose headers are `client` the way a client would, and returns which turn
 * each message is: every session a thread (external id `<sample_id>:S<n>`), its turns the thread's messages in
 * order — speaker, text, the session's time, position = turn order, client id = the turn's dia_id. A session is
 * what a client sends as one conversation: one sitting, days or weeks from the next.
 */
export async function ingestConversation(
  client: { base: string; headers: Record<string, string> },
  conversation: Conversation,
): Promise<{ turnOf: Map<string, string>; threads: number }> {
  const turnOf = new Map<string, string>()
  const sessions = Map.groupBy(conversation.turns, (t) => t.session)
  for (const [session, turns] of sessions) {
    const occurred_at = sessionTime(turns[0]!.date) ?? undefined
    for (let i = 0; i < turns.length; i += BATCH_LIMIT) {
      const batch = turns.slice(i, i + BATCH_LIMIT)
      const messages = batch.map((t, j) => ({ speaker: t.speaker, content: t.text, occurred_at, position: i + j, client_id: t.diaId }))
      // The same external id names the same thread: a session longer than a batch is appended to.
      const res = await fetch(`${client.base}/api/threads`, {
        method: 'POST',
        headers: client.headers,
        body: JSON.stringify({ title: `${conversation.id} ${session.split(':')[1]} · ${turns[0]!.date}`, external_id: session, messages }),
      })
      if (!res.ok) throw new Error(`ingest of ${session}: ${res.status} ${await res.text()}`)
      const { results } = (await res.json()) as {
        results: { results: ({ status: 200 | 201; document: { id: string } } | { status: number; error: string })[] }
      }
      results.results.forEach((r, j) => {
        if (!('document' in r)) throw new Error(`ingest of ${batch[j]!.id}: ${r.status} ${r.error}`)
        turnOf.set(r.document.id, batch[j]!.id)
      })
    }
  }
  return { turnOf, threads: sessions.size }
}

/**
 * The sessions of ranked turns, a session counting once at the rank of its first turn: a later turn of the same
 * session holds an empty place, so nDCG discounts each session by the rank of its first result.
 */
export const sessionRanking = (rankedTurns: string[], sessionOf: Map<string, string>): string[] => {
  const seen = new Set<string>()
  return rankedTurns.map((turn) => {
    const session = sessionOf.get(turn) ?? ''
    if (seen.has(session)) return ''
    seen.add(session)
    return session
  })
}
