// Helpers of the job suites: read a document's jobs, chunks and index state straight from the database,
// count how often a job kind really ran, and embedders that fail or wait on the test's signal.
import { expect } from 'bun:test'
import { and, asc, eq, inArray, sql } from 'drizzle-orm'
import { chunks, documents, jobs } from '../../db/schema'
import type { Embedder } from '../../src/embedding/embeddings'
import { chunkText } from '../../src/retrieval/chunk-text'
import type { EmbeddingModelV4 } from '../../src/embedding/hash-embedding'
import type { Deps } from '../../src/deps'
import { catalog } from '../../src/jobs/catalog'
import type { JobBatch, JobDefinition } from '../../src/queue/job-kinds'
import { enqueue, type JobRow } from '../../src/queue/queue'
import type { TestApp, TestUser } from '../harness'

let seq = 0
/** A body no other test uses, so content deduplication never joins two tests' documents. */
export const uniqueBody = (label = 'note') => `${label} ${++seq} ${crypto.randomUUID()} about gardens, rivers and bread`

/** Ingests with the user's API key and expects a new document (201); returns it. */
export async function ingest(t: TestApp, user: TestUser, body: Record<string, unknown> = {}) {
  const res = await t.json('POST', '/api/documents', { key: user.key, body: { body: uniqueBody(), ...body } })
  expect({ status: res.status, body: res.body }).toMatchObject({ status: 201 })
  return res.body as { id: string; index_status: string; [k: string]: unknown }
}

export async function patch(t: TestApp, user: TestUser, id: string, body: Record<string, unknown>) {
  const res = await t.json('PATCH', `/api/documents/${id}`, { key: user.key, body })
  expect({ status: res.status, body: res.body }).toMatchObject({ status: 200 })
  return res.body
}

/** Every job (any status) whose payload names this document, oldest first. */
/** Workers that run embed-document jobs only (each success also queues a suggest-links job). */
export const EMBED = ['embed-document'] as const

/** The document's embed-document jobs. */
export async function jobsFor(deps: Deps, documentId: string, kind = 'embed-document'): Promise<JobRow[]> {
  return deps.db
    .select()
    .from(jobs)
    .where(sql`${jobs.payload}->>'document_id' = ${documentId} and ${jobs.kind} = ${kind}`)
    .orderBy(asc(jobs.created_at), asc(jobs.id))
}

export async function jobById(deps: Deps, id: string): Promise<JobRow> {
  const [row] = await deps.db.select().from(jobs).where(eq(jobs.id, id))
  if (!row) throw new Error(`job ${id} not found`)
  return row
}

export async function indexStatus(deps: Deps, documentId: string): Promise<string | undefined> {
  const [row] = await deps.db.select({ s: documents.index_status }).from(documents).where(eq(documents.id, documentId))
  return row?.s
}

export async function chunksOf(deps: Deps, documentId: string) {
  return deps.db
    .select({
      id: chunks.id,
      content: chunkText,
      embedding: chunks.embedding,
      embedding_model: chunks.embedding_model,
      ordinal: chunks.ordinal,
    })
    .from(chunks)
    .innerJoin(documents, eq(documents.id, chunks.document_id))
    .where(eq(chunks.document_id, documentId))
    .orderBy(asc(chunks.ordinal))
}

type AnyDefinition = JobDefinition<any>
const kinds = catalog as unknown as Record<string, AnyDefinition>

/**
 * Wraps a catalog kind's run (and its batch's, for jobs of that kind) so the test can count (and delay) each
 * real run; restore() puts it back. The JobRow passed to run carries locked_by, i.e. the worker that claimed it.
 */
export function instrument(kind: string, before?: (job: JobRow) => Promise<void> | void) {
  const definition = kinds[kind]
  if (!definition) throw new Error(`no job kind ${kind}`)
  const original = definition.run
  const runs: { jobId: string; worker: string | null; attempt: number }[] = []
  const record = async (job: JobRow) => {
    if (job.kind !== kind) return
    runs.push({ jobId: job.id, worker: job.locked_by, attempt: job.attempts })
    await before?.(job)
  }
  definition.run = async (deps, payload, job) => {
    await record(job)
    return original.call(definition, deps, payload, job)
  }
  const unhook = definition.batch ? hookBatch(definition.batch, record) : () => {}
  return {
    runs,
    restore: () => {
      definition.run = original
      unhook()
    },
  }
}

/** Batches shared by several kinds are wrapped once, whatever order their instruments are restored in. */
const batchHooks = new Map<JobBatch, { original: JobBatch['run']; hooks: Set<(job: JobRow) => Promise<void>> }>()

function hookBatch(batch: JobBatch, hook: (job: JobRow) => Promise<void>): () => void {
  let entry = batchHooks.get(batch)
  if (!entry) {
    const created = { original: batch.run, hooks: new Set<(job: JobRow) => Promise<void>>() }
    batch.run = async (deps, jobs, keepAlive) => {
      for (const job of jobs) for (const h of created.hooks) await h(job)
      return created.original.call(batch, deps, jobs, keepAlive)
    }
    batchHooks.set(batch, (entry = created))
  }
  entry.hooks.add(hook)
  return () => {
    entry.hooks.delete(hook)
    if (entry.hooks.size === 0) {
      batch.run = entry.original
      batchHooks.delete(batch)
    }
  }
}

/** Registers a throwaway job kind (a test's own); the returned function removes it. */
export function registerKind(kind: string, definition: AnyDefinition): () => void {
  kinds[kind] = definition
  return () => {
    delete kinds[kind]
  }
}

/** The same embedder with doEmbed replaced; `calls` counts the calls. */
export function withDoEmbed(embedder: Embedder, doEmbed: (values: string[], original: EmbeddingModelV4) => Promise<number[][]>) {
  const original = embedder.model
  let calls = 0
  const model = {
    ...original,
    async doEmbed(options: { values: string[] }) {
      calls++
      return { embeddings: await doEmbed(options.values, original), warnings: [] }
    },
  } as unknown as EmbeddingModelV4
  return {
    embedder: { ...embedder, model } satisfies Embedder,
    get calls() {
      return calls
    },
  }
}

/** Embeds with the original model. */
export async function realEmbed(original: EmbeddingModelV4, values: string[]): Promise<number[][]> {
  const result = await (original as unknown as { doEmbed(o: { values: string[] }): Promise<{ embeddings: number[][] }> }).doEmbed({
    values,
  })
  return result.embeddings
}

/** A promise the test resolves or rejects when it chooses. */
export function deferred<T = void>() {
  let resolve!: (value: T) => void
  let reject!: (error: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

/** Polls until `check` holds (real time), failing after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, ms = 5_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(5)
  }
}

export const cosine = (a: number[], b: number[]) => a.reduce((s, v, i) => s + v * b[i]!, 0)

/**
 * Ingests `n` real documents for a new user, removes the jobs their ingests queued, and enqueues one
 * embed-document job per document directly with enqueue(); answers the job and document ids.
 */
export async function enqueueEmbedJobs(t: TestApp, n: number, runAt: Date = t.deps.clock.now()) {
  const u = await t.signUp()
  const docIds: string[] = []
  for (let i = 0; i < n; i++)
    docIds.push(
      (await ingest(t, u, { body: `${uniqueBody(`doc ${i}`)}\n\n${'Paragraph about concurrency and queues. '.repeat(40 + i)}` })).id,
    )
  await t.deps.db.delete(jobs).where(eq(jobs.user_id, u.id))
  const jobIds: string[] = []
  for (const documentId of docIds) {
    const id = t.deps.ids.next()
    await enqueue(t.deps.db, { id, kind: 'embed-document', payload: { document_id: documentId }, userId: u.id, runAt, maxAttempts: 5 })
    jobIds.push(id)
  }
  return { user: u, docIds, jobIds }
}

/** Every job ran exactly once (by the wrapped run), succeeded on its first attempt, and its document is fully embedded. */
export async function expectEachRanOnce(
  deps: Deps,
  jobIds: string[],
  docIds: string[],
  runs: { jobId: string; worker: string | null }[],
  embeddingModel: string,
) {
  const perJob = new Map<string, number>()
  for (const r of runs) perJob.set(r.jobId, (perJob.get(r.jobId) ?? 0) + 1)
  expect([...perJob.values()].filter((n) => n !== 1)).toEqual([])
  expect([...perJob.keys()].sort()).toEqual([...jobIds].sort())
  const rows = await deps.db.select().from(jobs).where(inArray(jobs.id, jobIds))
  expect(rows).toHaveLength(jobIds.length)
  const unexpected = rows.filter((j) => j.status !== 'succeeded' || j.attempts !== 1 || j.last_error !== null || j.locked_by !== null)
  expect(unexpected).toEqual([])
  const docs = await deps.db.select({ id: documents.id, s: documents.index_status }).from(documents).where(inArray(documents.id, docIds))
  expect(docs.filter((d) => d.s !== 'indexed')).toEqual([])
  const pending = await deps.db
    .select({ id: chunks.id })
    .from(chunks)
    .where(
      and(
        inArray(chunks.document_id, docIds),
        sql`(${chunks.embedding} is null or ${chunks.embedding_model} is distinct from ${embeddingModel})`,
      ),
    )
  expect(pending).toEqual([])
}

/** Replaces deps.log with one that records warn and error lines (messages with their fields); restore() puts it back. */
export function captureLog(deps: Deps) {
  const original = deps.log
  const lines: { level: 'warn' | 'error'; message: string; fields?: Record<string, unknown> }[] = []
  deps.log = {
    ...original,
    warn: (message, fields) => void lines.push({ level: 'warn', message, fields }),
    error: (message, fields) => void lines.push({ level: 'error', message, fields }),
  }
  return {
    lines,
    errors: () => lines.filter((l) => l.level === 'error'),
    restore: () => {
      deps.log = original
    },
  }
}
