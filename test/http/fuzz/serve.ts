// Child process entry of the fuzz: the server, its fakes and the fixtures, announced on stdout as one JSON line.
// Apart from the test runner, so a server whose event loop is stuck (a busy, wedged database) shows up as
// timeouts in the test instead of freezing the test itself.
import { drainJobs, startWorker } from '../../../src/jobs/worker'
import { createFixtures } from './fixtures'
import { startFuzzServer } from './server'

const server = await startFuzzServer()
const fixtures = await createFixtures(server.url, server.confluence)
// Fixtures embedded and linked before the run (search, links and the graph then hold real vectors and
// scores); the worker keeps embedding what the fuzz ingests, as it would in production.
await drainJobs(server.t.deps)
const worker = startWorker(server.t.deps, { pollMs: 200 })
console.log(`FUZZ_READY ${JSON.stringify(fixtures)}`)
// Until the parent closes stdin (or kills this process).
const stdin = Bun.stdin.stream().getReader()
while (!(await stdin.read()).done);
await worker.stop()
await server.stop()
process.exit(0)
