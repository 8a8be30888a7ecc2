// Preloaded by `bun test`: migrates the template database once, up front, so no test's own hooks pay for
// it (each app then clones it in ~0.5 s); and a generous default timeout for the slower suites. With
// TEST_DATABASE=postgres it also starts the real PostgreSQL and migrates its template database (test/pg/).
import { setDefaultTimeout } from 'bun:test'
import { migratedTemplate } from './harness'
import { onPostgres, warmUp } from './pg/databases'

setDefaultTimeout(30_000)
await migratedTemplate()
if (onPostgres) await warmUp()
