// Learnings proposed from a conversation: a chat model reads a thread's new messages (those after extracted_through)
// and proposes facts, preferences, decisions and routines; each becomes a pending_approval draft citing the messages it
// rests on (metadata.evidence) — superseding the active memory it updates, never repeating an equal memory or draft.
// All drafts of an extraction are written with its new extracted_through in one transaction, or none are.
import { and, asc, desc, eq, gt, lte, sql } from 'drizzle-orm'
import { documents, threads } from '../../../db/schema'
import { judgeAgainstMemories, MalformedAnswer, MAX_QUOTED_CHARS, type PromptMessage, proposeLearnings } from '../../ai/learnings'
import type { Deps } from '../../deps'
import { AppError, conflict, providerFailed, unavailable } from '../../http/errors'
import { lockUser } from '../../lib/locks'
import { getUser } from '../auth/auth.service'
import { SYSTEM, type SessionUser } from '../auth/session-user'
import { draftRow, insertDraftsWithinPlan } from '../documents/approval'
import { deriveTitle, MEMORY_KINDS, toDocumentDto } from '../documents/documents.model'
import { type Candidate, equalsInWorkspace, memoriesAbout, sameWords } from './extraction.match'
import { chatModelConfigured, queueExtractionIfDue } from './extraction.queue'
import { spokenTime, type ThreadRow } from './threads.model'
import { findThread } from './threads.service'

/** Messages one extraction reads at most, and at most this much of their text: the rest waits for the next one. */
export const MAX_EXTRACT_MESSAGES = 50
export const MAX_EXTRACT_CHARS = 24_000
/** Messages read before, shown for context: a reply ("Yes, every Sunday") means little alone. */
const EARLIER_MESSAGES = 4
/** Drafts one extraction proposes at most (as POST /api/memories/batch-draft). */
export const MAX_LEARNINGS = 25

export type SkipReason = 'invalid' | 'no_evidence' | 'duplicate' | 'known' | 'too_many'
export interface Skipped {
  title: string | null
  body: string | null
  reason: SkipReason
  detail: string
  /** The memory or draft it repeats. */
  existing_id?: string
}

interface Learning {
  kind: string
  title: string
  body: string
  evidence: string[]
  confidence?: number
  supersedes?: string
}

/** Extracts learnings from the thread's new messages, on the caller's request: 503 without a chat model. */
export async function extractLearnings(deps: Deps, user: SessionUser, threadId: string, signal?: AbortSignal) {
  // Another user's thread is a 404 whatever the server's configuration.
  const thread = await findThread(deps.db, user.id, threadId)
  if (!chatModelConfigured(deps))
    throw unavailable(
      'extracting learnings needs a chat model, and none is configured: set CHAT_MODEL (with OPENAI_BASE_URL and OPENAI_API_KEY) ' +
        'on the server — the built-in extractive answerer only quotes documents',
    )
  return extractFrom(deps, user, thread, signal)
}

/**
 * The extract-learnings job: as extractLearnings, for a thread that may be gone by now. A malformed answer is already
 * recorded on the thread and is not retried again; a provider that failed is (the queue's retry).
 */
export async function extractQueuedLearnings(deps: Deps, userId: string, threadId: string): Promise<void> {
  if (!chatModelConfigured(deps)) return
  const [thread] = await deps.db
    .select()
    .from(threads)
    .where(and(eq(threads.id, threadId), eq(threads.user_id, userId)))
  if (!thread) return
  try {
    // Recorded as the service's own job: no one asked for this extraction but the thread's length.
    const user = { ...(await getUser(deps, userId)), actor: { ...SYSTEM, label: 'learning extraction' } }
    await extractFrom(deps, user, thread)
  } catch (error) {
    // 409: another extraction of the thread ran meanwhile; the malformed answer is recorded for the person to see.
    if (error instanceof AppError && (error.status === 409 || error.cause instanceof MalformedAnswer)) return
    throw error
  }
  await queueExtractionIfDue(deps, thread)
}

async function extractFrom(deps: Deps, user: SessionUser, thread: ThreadRow, signal?: AbortSignal) {
  const { earlier, messages, remaining } = await readNewMessages(deps, user, thread)
  const last = messages.at(-1)
  if (!last)
    return { thread_id: thread.id, read: 0, remaining: false, extracted_through: thread.extracted_through, proposed: [], skipped: [] }
  const ids = new Map([...earlier, ...messages].flatMap((m) => [[m.ref, m.id] as const, [m.id, m.id] as const]))
  try {
    const proposed = await askModel(signal, () =>
      proposeLearnings(deps.chat.model, { kinds: MEMORY_KINDS, title: thread.title, earlier, messages, signal }),
    )
    const skipped: Skipped[] = []
    const learnings: Learning[] = []
    for (const p of proposed) {
      if ('invalid' in p) skipped.push({ title: p.title, body: null, reason: 'invalid', detail: p.invalid })
      else if (learnings.length >= MAX_LEARNINGS) skip(skipped, p, 'too_many', `one extraction proposes at most ${MAX_LEARNINGS} learnings`)
      else {
        const evidence = [...new Set(p.evidence.flatMap((ref) => (ids.has(ref) ? [ids.get(ref)!] : [])))]
        if (evidence.length === 0) skip(skipped, p, 'no_evidence', "it cites none of this thread's messages")
        else learnings.push({ ...p, title: p.title || deriveTitle(p.body, null), evidence })
      }
    }
    const fresh = await setAside(deps, user, thread, learnings, skipped, signal)
    const drafts = await writeDrafts(deps, user, thread, fresh, last.position, skipped.length)
    return {
      thread_id: thread.id,
      read: messages.length,
      remaining,
      extracted_through: last.position,
      proposed: drafts.map(toDocumentDto),
      skipped,
    }
  } catch (error) {
    if (signal?.aborted || !(error instanceof AppError) || error.status === 409) throw error
    await deps.db
      .update(threads)
      .set({ extraction: { status: 'failed', at: deps.clock.now().toISOString(), error: error.message } })
      .where(eq(threads.id, thread.id))
    deps.log.warn('extraction of learnings failed', { thread_id: thread.id, error: error.message })
    throw error
  }
}

const skip = (skipped: Skipped[], l: { title: string; body: string }, reason: SkipReason, detail: string, existing_id?: string) =>
  void skipped.push({ title: l.title || null, body: l.body, reason, detail, ...(existing_id ? { existing_id } : {}) })

/** The thread's active messages after extracted_through, within the bounds of one extraction, and a few before them. */
async function readNewMessages(deps: Deps, user: SessionUser, thread: ThreadRow) {
  const columns = {
    id: documents.id,
    position: documents.position,
    speaker: documents.speaker,
    occurred_at: documents.occurred_at,
    content: sql<string>`left(${documents.body}, ${MAX_QUOTED_CHARS + 1})`,
  }
  const ofThread = and(eq(documents.thread_id, thread.id), eq(documents.user_id, user.id), eq(documents.status, 'active'))
  const [after, before] = await Promise.all([
    deps.db
      .select(columns)
      .from(documents)
      .where(and(ofThread, gt(documents.position, thread.extracted_through)))
      .orderBy(asc(documents.position))
      .limit(MAX_EXTRACT_MESSAGES + 1),
    deps.db
      .select(columns)
      .from(documents)
      .where(and(ofThread, lte(documents.position, thread.extracted_through)))
      .orderBy(desc(documents.position))
      .limit(EARLIER_MESSAGES),
  ])
  // A prefix of the new messages: the first always, then as many as the text bound holds.
  let taken = 0
  for (let chars = 0; taken < Math.min(after.length, MAX_EXTRACT_MESSAGES); taken++) {
    chars += Math.min(after[taken]!.content.length, MAX_QUOTED_CHARS)
    if (chars > MAX_EXTRACT_CHARS && taken > 0) break
  }
  const prompt = (m: (typeof after)[number]): PromptMessage & { id: string; position: number } => ({
    id: m.id,
    position: m.position!,
    ref: `m${m.position}`,
    speaker: m.speaker ?? 'unknown',
    when: spokenTime(m.occurred_at),
    content: m.content,
  })
  return { earlier: before.reverse().map(prompt), messages: after.slice(0, taken).map(prompt), remaining: after.length > taken }
}

/**
 * Sets aside (into `skipped`) the learnings that repeat an equal memory or draft, or another learning of the batch,
 * and those the model judges to say what a memory found by search says; marks the ones that update a memory.
 */
async function setAside(deps: Deps, user: SessionUser, thread: ThreadRow, learnings: Learning[], skipped: Skipped[], signal?: AbortSignal) {
  const equal = await equalsInWorkspace(
    deps,
    user,
    thread.workspace_id,
    learnings.map((l) => l.body),
  )
  const seen = new Set<string>()
  const compared: { learning: Learning; memories: Candidate[] }[] = []
  const fresh: Learning[] = []
  for (const learning of learnings) {
    const words = sameWords(learning.body)
    const existing = equal(learning.body)
    if (existing) skip(skipped, learning, 'duplicate', `an equal ${existing.status === 'active' ? 'memory' : 'draft'} exists`, existing.id)
    else if (seen.has(words)) skip(skipped, learning, 'duplicate', 'it repeats another learning of this extraction')
    else {
      seen.add(words)
      const memories = await memoriesAbout(deps, user, thread.workspace_id, learning)
      const same = memories.find((m) => sameWords(m.body) === words)
      if (same) skip(skipped, learning, 'duplicate', 'an equal memory exists', same.id)
      else if (memories.length) compared.push({ learning, memories })
      else fresh.push(learning)
    }
  }
  if (compared.length === 0) return fresh
  // Each memory gets one ref (k1, k2…) however many learnings it is shown with.
  const refs = new Map<string, string>()
  const refOf = (id: string) => refs.get(id) ?? (refs.set(id, `k${refs.size + 1}`), refs.get(id)!)
  const idOf = new Map<string, string>()
  const comparisons = compared.map(({ learning, memories }) => ({
    kind: learning.kind,
    body: learning.body,
    memories: memories.map((m) => (idOf.set(refOf(m.id), m.id), { ref: refOf(m.id), kind: m.kind, title: m.title, body: m.body })),
  }))
  const verdicts = await askModel(signal, () => judgeAgainstMemories(deps.chat.model, comparisons, signal))
  compared.forEach(({ learning }, i) => {
    const v = verdicts[i]!
    if (v.verdict === 'same') skip(skipped, learning, 'known', 'it says what a memory already says', idOf.get(v.memory))
    else fresh.push(v.verdict === 'updates' ? { ...learning, supersedes: idOf.get(v.memory) } : learning)
  })
  return fresh
}

/** A model call: its failure is the provider's (502), a malformed answer named as such; a cancelled call stays cancelled. */
async function askModel<T>(signal: AbortSignal | undefined, call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (error) {
    if (signal?.aborted) throw error
    if (error instanceof MalformedAnswer) throw providerFailed(error.message, error)
    throw providerFailed(`the chat model failed: ${(error as Error).message.slice(0, 300)}`, error)
  }
}

/** The drafts and the thread's new extracted_through together: if another extraction moved it meanwhile, neither (409). */
async function writeDrafts(deps: Deps, user: SessionUser, thread: ThreadRow, learnings: Learning[], through: number, skipped: number) {
  const rows = learnings.map((l) =>
    draftRow(deps, user, thread.workspace_id, {
      kind: l.kind,
      title: l.title.slice(0, 500),
      body: l.body,
      source: 'agent',
      metadata: {
        thread_id: thread.id,
        evidence: l.evidence,
        ...(l.confidence !== undefined ? { confidence: l.confidence } : {}),
        ...(l.supersedes ? { supersedes: l.supersedes } : {}),
      },
    }),
  )
  return deps.db.transaction(async (tx) => {
    await lockUser(tx, user.id, 'documents')
    const extraction = { status: 'done', at: deps.clock.now().toISOString(), proposed: rows.length, skipped }
    const [moved] = await tx
      .update(threads)
      .set({ extracted_through: through, extraction })
      .where(and(eq(threads.id, thread.id), eq(threads.extracted_through, thread.extracted_through)))
      .returning({ id: threads.id })
    if (!moved)
      throw conflict(`thread ${thread.id}: another extraction of its messages ran at the same time; read the thread and ask again`)
    if (rows.length === 0) return []
    return insertDraftsWithinPlan(tx, deps, user, rows)
  })
}
