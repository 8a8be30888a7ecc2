// The real server (src/boot.ts, as `bun start` runs it) whose database stops answering on SIGUSR2, for the
// watchdog test: WEDGE=busy holds the thread inside the embedded database (pg_sleep: the thread never returns
// to JavaScript, like the busy loop of issue 10), WEDGE=idle holds a transaction that never ends (every other
// query waits behind it while the process idles).
import { sql } from 'drizzle-orm'
import type { PGlite } from '@electric-sql/pglite'
import { onSignals, startServer } from '../../src/boot'
import { loadConfigOrExit } from '../../src/config'

const booting = startServer(loadConfigOrExit())
onSignals(async (signal) => (await booting).shutdown(signal))
const running = await booting
// Wedged on the next turn of the event loop, as a request would, not inside the signal's dispatch.
process.on('SIGUSR2', () => setTimeout(wedge, 0))

function wedge() {
  const { deps } = running
  deps.log.info('wedging the database', { how: process.env.WEDGE })
  // drizzle runs a query only once it is awaited (then/catch): `void` alone would never send it.
  if (process.env.WEDGE === 'busy')
    deps.db.execute(sql`select pg_sleep(3600)`).catch((error) => deps.log.error('wedge failed', { error: String(error) }))
  else void (deps.db as unknown as { $client: PGlite }).$client.transaction(() => new Promise(() => {}))
}
