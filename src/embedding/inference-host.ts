// The inference process: runs the local model for the service (inference-process.ts), one forward pass (of one
// text) at a time, always taking the most urgent request next — a search's query before an API caller's texts
// before the job worker's batches — so a query waits for one pass at most, never for a backlog. Runs as a child process
// (messages over IPC) or as a worker thread (postMessage); either way it dies with its parent.
import { PRIORITIES, type FromHost, type Priority, type ToHost } from './inference-messages'
import { openExtractor } from './local-model'
import { nextTurn } from '../lib/next-turn'

const inWorker = typeof self !== 'undefined' && !Bun.isMainThread
const send = (message: FromHost) => (inWorker ? postMessage(message) : process.send!(message))

let extractor: Awaited<ReturnType<typeof openExtractor>> | null = null
type EmbedRequest = Extract<ToHost, { type: 'embed' }>
const queues: Record<Priority, EmbedRequest[]> = { query: [], request: [], background: [] }
/** The vectors of the requests begun, text by text. */
const progress = new Map<number, Float32Array[]>()
let busy = false

/** The oldest request of the most urgent priority that has any — once the messages that came in are read. */
async function nextRequest() {
  // A forward pass keeps this thread busy: a query that arrived meanwhile is still unread in the channel.
  await nextTurn()
  const priority = PRIORITIES.find((p) => queues[p].length > 0)
  return priority ? queues[priority][0]! : null
}

/** Out of its queue (by identity: a cancel during its pass has already filtered it out). */
const finish = (request: EmbedRequest) => {
  queues[request.priority] = queues[request.priority].filter((r) => r !== request)
  progress.delete(request.id)
}

/**
 * One forward pass per text, so that a text gets the same vector whatever it is sent with: the int8 model
 * quantizes its activations with one scale per pass (DynamicQuantizeLinear), so in a pass of several texts
 * each one's vector moved with the others (cosine 0.996 to its vector alone). A request's texts are embedded
 * in turn and a more urgent request goes between two of them, so a query still waits one pass at most.
 */
async function serve() {
  if (busy || !extractor) return
  busy = true
  try {
    for (let next: EmbedRequest | null; (next = await nextRequest()); ) {
      const done = progress.get(next.id) ?? []
      if (done.length === 0) progress.set(next.id, done), send({ type: 'started', id: next.id })
      try {
        const { data, dims } = await extractor.embed([next.values[done.length]!])
        done.push(data)
        if (done.length < next.values.length) continue
        finish(next)
        const all = new Float32Array(done.length * dims)
        done.forEach((vector, i) => all.set(vector, i * dims))
        send({ type: 'done', id: next.id, data: all, dims })
      } catch (error) {
        finish(next)
        send({ type: 'failed', id: next.id, message: error instanceof Error ? error.message : String(error) })
      }
    }
  } finally {
    busy = false
  }
}

async function receive(message: ToHost) {
  if (message.type === 'load') {
    try {
      extractor = await openExtractor(message.options)
      send({ type: 'ready' })
    } catch (error) {
      send({ type: 'load-failed', message: error instanceof Error ? error.message : String(error) })
    }
  } else if (message.type === 'embed') {
    queues[message.priority].push(message)
    void serve()
  } else if (message.type === 'cancel') {
    for (const p of PRIORITIES) queues[p] = queues[p].filter((m) => m.id !== message.id)
    progress.delete(message.id)
  }
}

if (inWorker) self.onmessage = (event: MessageEvent<ToHost>) => void receive(event.data)
else {
  process.on('message', (message: ToHost) => void receive(message))
  // The parent is gone (exited, crashed, killed): its end of the IPC channel closed. Never outlive it.
  process.on('disconnect', () => process.exit(0))
  const parent = process.ppid
  setInterval(() => process.ppid !== parent && process.exit(0), 1_000)
}
