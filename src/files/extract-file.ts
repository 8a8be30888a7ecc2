// Turns an uploaded file's bytes into text sections: in this process, or in a subprocess killed past its time or
// memory limit so a hostile file harms no one and the service keeps answering meanwhile.
import { type Extracted, reasonOf, UnreadableFile } from './extracted'
import { sniffFormat } from './file-format'
import type { ExtractLimits } from './limits'

export type { ExtractLimits } from './limits'

const WORKER = new URL('./extract-worker.ts', import.meta.url).pathname
const MiB = 1024 * 1024
/** How often the subprocess's resident memory is read. */
const MEMORY_POLL_MS = 20

/** The same as extractFile, in this process: for tests and for the subprocess itself. */
export async function extractInProcess(bytes: Uint8Array, filename: string, limits: ExtractLimits): Promise<Extracted> {
  const format = sniffFormat(bytes, filename)
  // Each reader is loaded when its format comes: the subprocess starts without the libraries it will not use.
  try {
    switch (format) {
      case 'pdf':
        return await (await import('./extract-pdf')).extractPdf(bytes, limits)
      case 'html':
        return await (await import('./extract-html')).extractHtml(bytes, limits)
      case 'markdown':
        return (await import('./extract-text')).extractMarkdown(bytes)
      case 'text':
        return (await import('./extract-text')).extractPlainText(bytes)
      default:
        return await (await import('./extract-office')).extractOffice(bytes, format, limits)
    }
  } catch (error) {
    if (error instanceof UnreadableFile) throw error
    throw new UnreadableFile(`the file is damaged or could not be read: ${reasonOf(error)}`)
  }
}

/** What the subprocess writes on its standard output. */
export type WorkerAnswer = { ok: true; extracted: Extracted } | { ok: false; unreadable: boolean; message: string }

/**
 * Extracts in a separate process (bytes over stdin, a JSON answer over stdout), killed past timeoutMs or past
 * maxMemoryBytes of resident memory; such a failure is an UnreadableFile naming the limit. The subprocess gets
 * no environment beyond what the runtime needs, so a file that took it over would find no secret there.
 */
export async function extractFile(bytes: Uint8Array, filename: string, limits: ExtractLimits): Promise<Extracted> {
  return (await extractFileMeasured(bytes, filename, limits)).extracted
}

/** extractFile, with the subprocess's peak resident memory as polled (for the benchmark). */
export async function extractFileMeasured(
  bytes: Uint8Array,
  filename: string,
  limits: ExtractLimits,
): Promise<{ extracted: Extracted; peakRssBytes: number }> {
  const child = Bun.spawn([process.execPath, WORKER, filename, JSON.stringify(limits)], {
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'pipe',
    // JSC sizes its heap and collects against this figure rather than the machine's RAM.
    env: { PATH: process.env.PATH ?? '', BUN_JSC_forceRAMSize: String(limits.maxMemoryBytes) },
  })
  let stopped: string | undefined
  let peakRssBytes = 0
  const stop = (reason: string) => {
    stopped ??= reason
    child.kill('SIGKILL')
  }
  const timer = setTimeout(() => stop(`took longer than ${seconds(limits.timeoutMs)}`), limits.timeoutMs)
  const poll = setInterval(async () => {
    const rss = await residentBytes(child.pid)
    peakRssBytes = Math.max(peakRssBytes, rss ?? 0)
    if (rss !== undefined && rss > limits.maxMemoryBytes) stop(`needed more than ${Math.round(limits.maxMemoryBytes / MiB)} MiB`)
  }, MEMORY_POLL_MS)
  try {
    const output = new Response(child.stdout).text()
    const errors = new Response(child.stderr).text()
    try {
      child.stdin.write(bytes)
      await child.stdin.end()
    } catch {
      // The subprocess ended before reading everything: its exit says why.
    }
    const [exitCode, text] = await Promise.all([child.exited, output, errors])
    if (stopped) throw new UnreadableFile(`the file ${stopped}: it is not read`)
    return { extracted: answerOf(text, exitCode), peakRssBytes }
  } finally {
    clearTimeout(timer)
    clearInterval(poll)
  }
}

function answerOf(text: string, exitCode: number): Extracted {
  let answer: WorkerAnswer | undefined
  try {
    answer = JSON.parse(text) as WorkerAnswer
  } catch {
    answer = undefined
  }
  if (answer?.ok) return answer.extracted
  if (answer?.unreadable) throw new UnreadableFile(answer.message)
  throw new UnreadableFile(`the file could not be read: ${answer ? answer.message : `the reader stopped (exit ${exitCode})`}`)
}

const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`)

/** VmRSS from /proc (Linux); undefined elsewhere or once the process is gone. */
async function residentBytes(pid: number): Promise<number | undefined> {
  try {
    const status = await Bun.file(`/proc/${pid}/status`).text()
    const kib = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1]
    return kib ? Number(kib) * 1024 : undefined
  } catch {
    return undefined
  }
}
