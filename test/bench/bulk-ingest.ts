// What bench:storage and bench:search's after-ingest scenario share: SciFact-sized documents, a user and key made
// through the API as a new user does, and the ingest itself — `clients` clients each taking the next batch of
// POST /api/documents/bulk until none is left — with the process figures read from /proc.
import { readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import type { CorpusDoc } from './scifact'

/** SciFact's corpus cycled to n documents. Copy c (c ≥ 1) of an abstract has its sentences rotated by c places and
 * ends with "(copy c)", so no two documents are the same text (none deduplicated) and the vocabulary stays SciFact's. */
export function documentsOf(corpus: CorpusDoc[], n: number): { title: string; body: string }[] {
  return Array.from({ length: n }, (_, i) => {
    const doc = corpus[i % corpus.length]!
    const copy = Math.floor(i / corpus.length)
    if (copy === 0) return { title: doc.title, body: doc.text }
    const sentences = doc.text.split(/(?<=[.!?])\s+/)
    const shift = copy % sentences.length
    const rotated = [...sentences.slice(shift), ...sentences.slice(0, shift)].join(' ')
    return { title: doc.title, body: `${rotated} (copy ${copy})` }
  })
}

/** A process's CPU seconds, user + system, from /proc. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

export const loadAverage = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')

/** Signs up a user and makes an API key through the API, as a new user does. */
export async function apiKey(url: string, label: string): Promise<string> {
  const origin = url
  const signUp = await fetch(`${url}/api/auth/sign-up`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin },
    body: JSON.stringify({ email: `bench-${crypto.randomUUID().slice(0, 8)}@example.com`, password: 'benchmark password' }),
  })
  if (signUp.status !== 201) throw new Error(`sign-up: ${signUp.status} ${await signUp.text()}`)
  const cookie = signUp.headers.getSetCookie()[0]!.split(';')[0]!
  const res = await fetch(`${url}/api/keys`, {
    method: 'POST',
    headers: { cookie, origin, 'content-type': 'application/json' },
    body: JSON.stringify({ label }),
  })
  if (res.status !== 201) throw new Error(`key: ${res.status} ${await res.text()}`)
  return ((await res.json()) as { key: string }).key
}

export interface Ingest {
  seconds: number
  /** When each 10,000th document was acknowledged, seconds from the start. */
  marks: { docs: number; at: number }[]
  /** Each batch's round trip, seconds, in the order they were acknowledged. */
  batchSeconds: number[]
  /** The server process's CPU seconds (user + system) during the ingest. */
  serverCpuS: number
  created: number
  deduplicated: number
  failed: number
  endedAt: number
}

/** `clients` clients each taking the next batch of `batch` documents until none is left. */
export async function ingest(
  url: string,
  key: string,
  docs: { title: string; body: string }[],
  pid: number,
  { clients, batch }: { clients: number; batch: number },
): Promise<Ingest> {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' }
  const batches = Array.from({ length: Math.ceil(docs.length / batch) }, (_, b) => docs.slice(b * batch, (b + 1) * batch))
  let next = 0
  let done = 0
  let created = 0
  let deduplicated = 0
  let failed = 0
  const marks: Ingest['marks'] = []
  const batchSeconds: number[] = []
  const cpuBefore = cpuSeconds(pid)
  const started = performance.now()
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < batches.length) {
        const documents = batches[next++]!
        const sent = performance.now()
        const res = await fetch(`${url}/api/documents/bulk`, { method: 'POST', headers, body: JSON.stringify({ documents }) })
        const body = (await res.json()) as { created: number; deduplicated: number; failed: number }
        if (res.status !== 200) throw new Error(`bulk: ${res.status} ${JSON.stringify(body).slice(0, 300)}`)
        batchSeconds.push((performance.now() - sent) / 1000)
        created += body.created
        deduplicated += body.deduplicated
        failed += body.failed
        const before = done
        done += documents.length
        for (let m = Math.floor(before / 10_000) + 1; m * 10_000 <= done; m++)
          marks.push({ docs: m * 10_000, at: (performance.now() - started) / 1000 })
      }
    }),
  )
  const seconds = (performance.now() - started) / 1000
  if (done % 10_000) marks.push({ docs: done, at: seconds })
  const serverCpuS = cpuSeconds(pid) - cpuBefore
  return { seconds, marks, batchSeconds, serverCpuS, created, deduplicated, failed, endedAt: Date.now() }
}

export function printIngest(result: Ingest, n: number, who = 'the server process') {
  console.log(
    `  ingest: ${n} documents in ${result.seconds.toFixed(1)} s = ${(n / result.seconds).toFixed(0)} docs/s ` +
      `(created ${result.created}, deduplicated ${result.deduplicated}, failed ${result.failed}); load average ${loadAverage()}`,
  )
  let last = { docs: 0, at: 0 }
  const per = result.marks.map((m) => {
    const rate = (m.docs - last.docs) / (m.at - last.at)
    last = m
    return `${m.docs / 1000}k ${rate.toFixed(0)}`
  })
  console.log(`  docs/s per 10,000 (up to the count shown): ${per.join(', ')}`)
  const sorted = [...result.batchSeconds].sort((a, b) => a - b)
  console.log(
    `  a batch's round trip: first ${result.batchSeconds[0]?.toFixed(2)} s, median ${sorted[Math.floor(sorted.length / 2)]?.toFixed(2)} s, ` +
      `max ${sorted.at(-1)?.toFixed(2)} s; ${who} used ${result.serverCpuS.toFixed(1)} CPU-seconds = ` +
      `${(n / result.serverCpuS).toFixed(0)} docs per CPU-second (what a machine others keep busy skews least)`,
  )
}
