// Runs the local model off the request path: in a child process started at lower scheduling priority (so it
// takes every idle cycle and the API's threads always win the CPU), or in a worker thread with ONNX Runtime's
// threads bounded. The service sees the AI SDK's embedding interface; a call names its priority (providerOptions
// `local.priority`: query, request or background) and the inference host serves the most urgent first. The host
// dies with this process; if it dies first it is restarted, and what it was embedding is sent again once.
import { availableParallelism, setPriority } from 'node:os'
import { join } from 'node:path'
import type { EmbeddingDtype, InferenceOptions } from '../config'
import type { Logger } from '../log'
import type { EmbeddingModelV4 } from './hash-embedding'
import type { FromHost, Priority, ToHost } from './inference-messages'
import type { LocalModelOptions } from './local-model'

const HOST_SCRIPT = join(import.meta.dir, 'inference-host.ts')
/** Texts per call at most (an embedMany of more is split into calls of this size). */
const BATCH = 32
/** A host that has exited this many times within a minute is restarted after a growing pause (1 s … 30 s). */
const CRASH_WINDOW_MS = 60_000

export interface InferenceRunner {
  model: EmbeddingModelV4
  /** The inference process's id (null for a worker thread, or while it is restarting). */
  pid(): number | null
  /** Calls sent and not answered yet, and how many of them are in a forward pass now. */
  pending(): { queued: number; running: number }
  /** Stops the host; calls not answered yet fail. */
  close(): Promise<void>
}

/** One running inference host, as seen from here. */
interface Host {
  pid: number | null
  /**
   * Keeps this process alive for the host (while calls are out), or not (idle: a script that never closes its
   * deps still exits, and the host follows it). Held while waiting, too: an unheld channel is polled lazily.
   */
  hold(on: boolean): void
  send(message: ToHost): void
  kill(signal?: NodeJS.Signals): void
  /** How it ended: `signal SIGKILL`, `exit code 1`. */
  exited: Promise<string>
}

interface Call {
  id: number
  values: string[]
  priority: Priority
  resolve(vectors: number[][]): void
  reject(error: Error): void
  sent: boolean
  running: boolean
  /** Times the host died while this call was in its forward pass: a second time, the call fails. */
  crashes: number
}

function spawnProcess(nice: number, onMessage: (message: FromHost) => void): Host {
  const cmd = [process.execPath, HOST_SCRIPT]
  // Started niced, so every thread it creates (ONNX Runtime's pool included) inherits the lower priority.
  const niceBin = nice > 0 ? Bun.which('nice') : null
  const proc = Bun.spawn({
    cmd: niceBin ? [niceBin, '-n', String(nice), ...cmd] : cmd,
    ipc: (message) => onMessage(message as FromHost),
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  if (nice > 0 && !niceBin) setPriority(proc.pid, nice)
  return {
    pid: proc.pid,
    hold: (on) => (on ? proc.ref() : proc.unref()),
    send: (message) => proc.send(message),
    kill: (signal = 'SIGTERM') => proc.kill(signal),
    exited: proc.exited.then(() => (proc.signalCode ? `signal ${proc.signalCode}` : `exit code ${proc.exitCode}`)),
  }
}

function spawnThread(onMessage: (message: FromHost) => void): Host {
  const worker = new Worker(HOST_SCRIPT)
  worker.onmessage = (event: MessageEvent<FromHost>) => onMessage(event.data)
  const exited = new Promise<string>((resolve) => {
    worker.addEventListener('close', (event) => resolve(`exit code ${(event as CloseEvent).code}`))
    worker.addEventListener('error', () => worker.terminate())
  })
  const handle = worker as unknown as { ref(): void; unref(): void }
  return {
    pid: null,
    hold: (on) => (on ? handle.ref() : handle.unref()),
    send: (message) => worker.postMessage(message),
    kill: () => worker.terminate(),
    exited,
  }
}

const toVectors = (data: Float32Array, dims: number, n: number) =>
  Array.from({ length: n }, (_, i) => Array.from(data.subarray(i * dims, (i + 1) * dims)))

export async function startInference(
  options: LocalModelOptions & { dtype: EmbeddingDtype },
  inference: InferenceOptions,
  log?: Logger,
): Promise<InferenceRunner> {
  // A thread shares this process's cores with the API: it gets one fewer than there are, unless told.
  const threads = inference.threads ?? (inference.isolation === 'thread' ? Math.max(1, availableParallelism() - 1) : null)
  const load: ToHost = { type: 'load', options: { ...options, threads } }
  const calls = new Map<number, Call>()
  const exits: number[] = []
  let host: Host | null = null
  let starting: Promise<void> | null = null
  let closed = false
  let nextId = 1

  /** A host with the model loaded, or the loading error (transformers.js's own message). */
  const spawn = () =>
    new Promise<Host>((resolve, reject) => {
      let ready = false
      const onMessage = (message: FromHost) => {
        if (message.type === 'ready') (ready = true), started.hold(calls.size > 0), resolve(started)
        else if (message.type === 'load-failed') reject(new Error(message.message)), started.kill()
        else answer(started, message)
      }
      const started = inference.isolation === 'thread' ? spawnThread(onMessage) : spawnProcess(inference.nice, onMessage)
      void started.exited.then((how) =>
        ready ? onExit(started, how) : reject(new Error(`the inference process ended (${how}) while loading the model`)),
      )
      started.send(load)
    })

  const send = (call: Call) => {
    call.sent = true
    host!.hold(true)
    host!.send({ type: 'embed', id: call.id, values: call.values, priority: call.priority })
  }

  function answer(from: Host, message: FromHost) {
    const call = message.type === 'ready' || message.type === 'load-failed' ? undefined : calls.get(message.id)
    if (!call || from !== host) return
    if (message.type === 'started') return void (call.running = true)
    calls.delete(call.id)
    if (calls.size === 0) from.hold(false)
    if (message.type === 'done') call.resolve(toVectors(message.data, message.dims, call.values.length))
    else if (message.type === 'failed') call.reject(new Error(message.message))
  }

  function onExit(from: Host, how: string) {
    if (from !== host) return
    host = null
    if (closed) return
    exits.push(Date.now())
    log?.warn('the embedding process exited; restarting it', { how, pending: calls.size })
    for (const call of [...calls.values()]) {
      if (call.running && ++call.crashes >= 2) {
        calls.delete(call.id)
        call.reject(new Error(`the embedding process ended (${how}) twice while embedding these texts; they were not embedded`))
      }
      call.sent = call.running = false
    }
    void restart()
  }

  /** Starts a new host (after a pause when it keeps dying) and sends it every call not answered yet. */
  function restart(): Promise<void> {
    starting ??= (async () => {
      const recent = exits.filter((t) => Date.now() - t < CRASH_WINDOW_MS).length
      if (recent > 1) await Bun.sleep(Math.min(30_000, 1000 * 2 ** (recent - 2)))
      try {
        if (closed) return
        const next = await spawn()
        if (closed) return next.kill()
        host = next
        log?.info('the embedding process is running again', { pid: next.pid })
        for (const call of calls.values()) if (!call.sent) send(call)
      } catch (error) {
        const message = `the embedding process could not be restarted: ${(error as Error).message}`
        log?.error(message)
        for (const call of [...calls.values()]) if (!call.sent) calls.delete(call.id), call.reject(new Error(message))
      } finally {
        starting = null
      }
    })()
    return starting
  }

  function embed(values: string[], priority: Priority, signal?: AbortSignal): Promise<number[][]> {
    if (closed) return Promise.reject(new Error('the embedding model has been closed'))
    return new Promise((resolve, reject) => {
      const call: Call = { id: nextId++, values, priority, resolve, reject, sent: false, running: false, crashes: 0 }
      calls.set(call.id, call)
      if (host) send(call)
      else void restart()
      signal?.addEventListener(
        'abort',
        () => {
          if (!calls.delete(call.id)) return
          host?.send({ type: 'cancel', id: call.id })
          reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'))
        },
        { once: true },
      )
    })
  }

  host = await spawn()
  const model = {
    specificationVersion: 'v4',
    provider: 'transformers.js',
    modelId: options.model,
    maxEmbeddingsPerCall: BATCH,
    // Every call goes to the host at once; it runs one forward pass at a time, the most urgent first.
    supportsParallelCalls: true,
    async doEmbed({ values, abortSignal, providerOptions }) {
      abortSignal?.throwIfAborted()
      const priority = (providerOptions?.local?.priority as Priority | undefined) ?? 'request'
      return { embeddings: await embed(values, priority, abortSignal), warnings: [] }
    },
  } as EmbeddingModelV4

  return {
    model,
    pid: () => host?.pid ?? null,
    pending: () => ({ queued: calls.size, running: [...calls.values()].filter((c) => c.running).length }),
    async close() {
      closed = true
      for (const call of calls.values()) call.reject(new Error('the embedding model has been closed'))
      calls.clear()
      const last = host
      host = null
      // A restart under way kills what it started once it sees `closed`.
      if (!last) return
      last.kill()
      const killLater = setTimeout(() => last.kill('SIGKILL'), 2_000)
      await last.exited
      clearTimeout(killLater)
    },
  }
}
