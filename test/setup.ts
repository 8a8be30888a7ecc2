// Preloaded by `bun test`: migrates the template database once, up front, so no test's own hooks pay for
// it (each app then clones it in ~0.5 s); and a generous default timeout for the slower suites.
import { setDefaultTimeout } from 'bun:test'
import { migratedTemplate } from './harness'

setDefaultTimeout(30_000)
await migratedTemplate()

