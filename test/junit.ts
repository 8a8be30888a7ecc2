// Reads the JUnit XML report `bun test --reporter=junit --reporter-outfile=<file>` writes: its tests counted by
// outcome (a todo is a <skipped message="TODO">), and which of the files it was given are not in it.
import { DOMParser } from 'linkedom'

export interface JunitCounts {
  pass: number
  fail: number
  skip: number
  todo: number
  /** Files given to the run with no <testsuite> in the report (all of them when there is no report). */
  missing: string[]
}

export async function readJunitReport(path: string, files: string[]): Promise<JunitCounts> {
  const counts: JunitCounts = { pass: 0, fail: 0, skip: 0, todo: 0, missing: [] }
  const file = Bun.file(path)
  if (!(await file.exists())) return { ...counts, missing: [...files] }
  const doc = new DOMParser().parseFromString(await file.text(), 'text/xml')
  for (const testcase of doc.querySelectorAll('testcase')) {
    const skipped = testcase.querySelector('skipped')
    if (testcase.querySelector('failure, error')) counts.fail++
    else if (skipped?.getAttribute('message') === 'TODO') counts.todo++
    else if (skipped) counts.skip++
    else counts.pass++
  }
  const reported = new Set([...doc.querySelectorAll('testsuites > testsuite')].map((suite) => normalise(suite.getAttribute('file') ?? '')))
  counts.missing = files.filter((f) => !reported.has(normalise(f)))
  return counts
}

const normalise = (path: string) => path.replace(/^\.\//, '')
