// Fail loudly, never hang, when the embedded database's WebAssembly backend breaks.
//
// Why: Postgres runs inside PGlite as WebAssembly on the JavaScript engine's own stack. Input that makes
// Postgres recurse deeply (JSON nested thousands deep, say) can exhaust the engine's stack before Postgres's
// own `max_stack_depth` check fires. The engine then throws a RangeError through the middle of Postgres, and
// PGlite's protocol loop swallows it: the statement "succeeds" with no rows, and the backend is left with
// half-unwound state (memory contexts, locks, error handlers). The next query that raises any error then
// spins forever inside WebAssembly, blocking the event loop, and the process answers nothing again.
// The edge refuses such input (src/http/input-guard.ts); this guard is the second line: the first exception
// that escapes Postgres's own error handling marks the instance crashed, every query from then on fails at
// once without entering WebAssembly, and the owner is told (health answers 503; the server exits so a
// supervisor restarts it on the intact files).
import type { PGlite } from '@electric-sql/pglite'

/** Postgres's own longjmp, thrown as a JS exception by Emscripten and handled by PGlite: not a crash. */
const POSTGRES_LONGJMP = 100

export class DatabaseCrashedError extends Error {
  constructor(readonly reason: string) {
    super(`the embedded database crashed (${reason}); restart the service`)
    this.name = 'DatabaseCrashedError'
  }
}

export interface PgliteGuard {
  /** Why the database crashed, or null while it is healthy. */
  readonly crashed: string | null
  /** Called once, when it crashes. */
  onCrash(listener: (reason: string) => void): void
}

interface PgliteInternals {
  Module: Record<string, unknown>
  execProtocolRaw: (...args: unknown[]) => Promise<Uint8Array>
}

export function guardPglite(pglite: PGlite): PgliteGuard {
  const internals = pglite as unknown as PgliteInternals
  const mod = internals.Module
  const listeners: ((reason: string) => void)[] = []
  let crashed: string | null = null
  const crash = (error: unknown) => {
    if (crashed !== null) return
    crashed = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
    for (const listener of listeners) listener(crashed)
  }

  // Every statement runs through one step of Postgres's main loop; PGlite catches what it throws.
  const step = mod._PostgresMainLoopOnce as (...args: unknown[]) => unknown
  if (typeof step !== 'function') throw new Error('PGlite internals changed: _PostgresMainLoopOnce is missing (check the pinned version)')
  mod._PostgresMainLoopOnce = function (this: unknown, ...args: unknown[]) {
    try {
      return step.apply(this, args)
    } catch (error) {
      if ((error as { status?: number })?.status !== POSTGRES_LONGJMP) crash(error)
      throw error
    }
  }

  // Every query, transaction and COPY goes through execProtocolRaw: refuse before and after a crash.
  const exec = internals.execProtocolRaw.bind(pglite)
  internals.execProtocolRaw = async (...args: unknown[]) => {
    if (crashed !== null) throw new DatabaseCrashedError(crashed)
    const result = await exec(...args)
    if (crashed !== null) throw new DatabaseCrashedError(crashed)
    return result
  }

  return {
    get crashed() {
      return crashed
    },
    onCrash(listener) {
      listeners.push(listener)
    },
  }
}
