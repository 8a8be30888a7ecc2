// The subprocess extractFile starts: the file's bytes on stdin, its name and limits as arguments, the answer
// (sections, or why the file is unreadable) as JSON on stdout.
import { extractInProcess, type WorkerAnswer } from './extract-file'
import { reasonOf, UnreadableFile } from './extracted'
import type { ExtractLimits } from './limits'

const [filename = 'file', limitsJson = '{}'] = process.argv.slice(2)
const limits = JSON.parse(limitsJson) as ExtractLimits
const bytes = new Uint8Array(await Bun.stdin.arrayBuffer())

let answer: WorkerAnswer
try {
  answer = { ok: true, extracted: await extractInProcess(bytes, filename, limits) }
} catch (error) {
  answer = { ok: false, unreadable: error instanceof UnreadableFile, message: reasonOf(error) }
}
await Bun.write(Bun.stdout, JSON.stringify(answer))
process.exit(0)
