// What a message of a thread is indexed with besides its own words: the messages said just before it in its
// thread. A reply ("Yes! It was so powerful.") is about what it answers, so the words of the messages before it
// count on the keyword side (at half the weight of its own) and are read before it when its vector is computed.
// One rule for both sides and every path (a single write, a bulk insert, the embedding job); README "How
// messages are indexed" gives the measurements behind the numbers.
import { sql } from 'drizzle-orm'
import { queryRows, type Tx } from '../../db/client'

/** How many messages before it a message is read with. */
export const CONTEXT_MESSAGES = 2
/**
 * Characters of each earlier message that count (its end, nearest the message that answers it): a pasted page
 * before a reply says little about the reply. Two of them, the speakers' names and a whole chunk (1,200 characters)
 * stay under what a 512-token embedding model such as bge-small reads, so the message's own words are never cut.
 */
export const CONTEXT_CHARS = 300
/**
 * On the keyword side a message's own words count this many times (its title and tags TITLE_WEIGHT times that),
 * the words of the messages before it once: context counts half as much as what the message itself says. Postings
 * hold whole counts (keyword-cache-segment.ts keeps tf as uint16), so the ratio is made with integers.
 */
export const MESSAGE_WEIGHT = 2
export const CONTEXT_WEIGHT = 1

/** A message as its followers see it: who said what. */
export interface Said {
  speaker: string | null
  body: string
}

/** Where a message is: enough to find what comes before and after it. */
export interface Placed {
  thread_id: string | null
  position: number | null
}

export const isMessage = (doc: Placed): doc is { thread_id: string; position: number } => doc.thread_id !== null && doc.position !== null

/** The end of an earlier message that counts, cut at a word when one is near. */
export function contextPart(body: string): string {
  const text = body.trim()
  if (text.length <= CONTEXT_CHARS) return text
  const tail = text.slice(-CONTEXT_CHARS)
  const space = tail.search(/\s/)
  return (space >= 0 && space < 30 ? tail.slice(space) : tail).trimStart()
}

/** The words the keyword index adds for a message's context: the earlier messages' text, oldest first. */
export function contextWords(before: Said[]): string {
  return before.map((m) => contextPart(m.body)).join('\n')
}

/** The messages before a message as its vector reads them: one line each, with its speaker, oldest first. */
export function transcriptLines(before: Said[]): string[] {
  return before.map((m) => `${m.speaker ?? 'someone'}: ${contextPart(m.body)}`)
}

/**
 * The up to CONTEXT_MESSAGES messages before each of `targets` in its thread, oldest first: from `batch` (messages
 * written in the same statement, not stored yet) and from the stored ones, whichever are nearer. A stored message
 * is looked for only when the batch does not hold the CONTEXT_MESSAGES positions just before (an append's first
 * messages, a gap; a new thread's first messages need none): one index probe each on (thread_id, position).
 */
export async function messagesBefore(
  tx: Tx,
  targets: (Placed & { id: string })[],
  batch: (Placed & Said)[] = [],
): Promise<Map<string, Said[]>> {
  const byThread = Map.groupBy(batch.filter(isMessage), (m) => m.thread_id)
  for (const list of byThread.values()) list.sort((a, b) => a.position! - b.position!)
  const found = new Map<string, (Said & { position: number })[]>()
  const probes: { i: string; t: string; p: number }[] = []
  for (const target of targets) {
    if (!isMessage(target)) continue
    const list = byThread.get(target.thread_id) ?? []
    const at = firstAtOrAfter(list, target.position)
    const earlier = list.slice(Math.max(0, at - CONTEXT_MESSAGES), at)
    found.set(
      target.id,
      earlier.map((m) => ({ speaker: m.speaker, body: m.body, position: m.position! })),
    )
    // The batch holds every position just before, back to CONTEXT_MESSAGES of them or to the thread's start (0).
    const wanted = Math.min(CONTEXT_MESSAGES, target.position)
    const complete = earlier.length >= wanted && (wanted === 0 || earlier.at(-wanted)!.position === target.position - wanted)
    if (!complete) probes.push({ i: target.id, t: target.thread_id, p: target.position })
  }
  if (probes.length > 0) {
    const rows = await queryRows<{ i: string; speaker: string | null; body: string; position: number }>(
      tx,
      sql`select k.i, s.speaker, s.body, s.position from jsonb_to_recordset(${JSON.stringify(probes)}::jsonb) as k(i text, t uuid, p integer)
          cross join lateral (select d.speaker, d.body, d.position from documents d where d.thread_id = k.t and d.position < k.p
                              order by d.position desc limit ${CONTEXT_MESSAGES}) s`,
    )
    for (const row of rows) found.get(row.i)!.push({ speaker: row.speaker, body: row.body, position: Number(row.position) })
  }
  const out = new Map<string, Said[]>()
  for (const [id, list] of found) {
    const nearest = list.sort((a, b) => a.position - b.position).slice(-CONTEXT_MESSAGES)
    out.set(
      id,
      nearest.map(({ speaker, body }) => ({ speaker, body })),
    )
  }
  return out
}

/** The index of the first message of `list` (sorted by position) at `position` or after it. */
function firstAtOrAfter(list: Placed[], position: number): number {
  let [lo, hi] = [0, list.length]
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (list[mid]!.position! < position) lo = mid + 1
    else hi = mid
  }
  return lo
}

/**
 * The stored messages whose context holds one of `at` (messages written or removed): the CONTEXT_MESSAGES after
 * each in its thread, by position, whatever their status. Messages of `batch` (written in the same statement,
 * indexed with their context already) are left out, and a message of the batch followed in it by the next
 * CONTEXT_MESSAGES positions needs no look: an append probes for its last messages only.
 */
export async function messagesAfter(tx: Tx, at: Placed[], batch: (Placed & { id: string })[] = []): Promise<string[]> {
  const written = new Set(batch.filter(isMessage).map((m) => `${m.thread_id}:${m.position}`))
  const followedInBatch = (m: { thread_id: string; position: number }) =>
    Array.from({ length: CONTEXT_MESSAGES }, (_, k) => written.has(`${m.thread_id}:${m.position + k + 1}`)).every(Boolean)
  const probes = at
    .filter(isMessage)
    .filter((m) => !followedInBatch(m))
    .map((m) => ({ t: m.thread_id, p: m.position }))
  if (probes.length === 0) return []
  const rows = await queryRows<{ id: string }>(
    tx,
    sql`select distinct s.id from jsonb_to_recordset(${JSON.stringify(probes)}::jsonb) as k(t uuid, p integer)
        cross join lateral (select d.id from documents d where d.thread_id = k.t and d.position > k.p
                            order by d.position limit ${CONTEXT_MESSAGES}) s`,
  )
  const ids = new Set(batch.map((m) => m.id))
  return rows.map((r) => r.id).filter((id) => !ids.has(id))
}
