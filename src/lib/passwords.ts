// Password hashing (argon2id) with its work bounded: a few hashes at once, a bounded queue behind them, and 503
// with Retry-After past it, so a flood of sign-ins cannot take every core (and 64 MiB a hash) from other requests.
import { AppError } from '../http/errors'

export interface WorkStats {
  /** Running now, waiting for a turn, the most ever running at once, and every task admitted so far. */
  running: number
  waiting: number
  peak: number
  admitted: number
}

export interface WorkLimit {
  /** Runs `task` when fewer than `concurrency` run; throws `busy()` at once when `queue` tasks already wait. */
  run<T>(task: () => Promise<T>): Promise<T>
  stats(): WorkStats
}

export function createWorkLimit(options: { concurrency: number; queue: number; busy: () => Error }): WorkLimit {
  let running = 0
  let peak = 0
  let admitted = 0
  const waiting: (() => void)[] = []
  const release = () => {
    const next = waiting.shift()
    if (next) next()
    else running--
  }
  return {
    async run(task) {
      if (running >= options.concurrency) {
        if (waiting.length >= options.queue) throw options.busy()
        // `release` hands its slot straight to the next in line, so `running` never dips and no one jumps the queue.
        await new Promise<void>((resolve) => waiting.push(resolve))
      } else running++
      admitted++
      peak = Math.max(peak, running)
      try {
        return await task()
      } finally {
        release()
      }
    },
    stats: () => ({ running, waiting: waiting.length, peak, admitted }),
  }
}

// Half the cores at most (one on two), so argon2 always leaves the rest to the API; a queue of 64 is a few seconds.
export const PASSWORD_CONCURRENCY = Math.max(1, Math.min(4, Math.floor(navigator.hardwareConcurrency / 2)))
export const PASSWORD_QUEUE = 64

/** The one limit every password hash and check in the process goes through. */
export const passwordWork = createWorkLimit({
  concurrency: PASSWORD_CONCURRENCY,
  queue: PASSWORD_QUEUE,
  busy: () =>
    new AppError(503, 'too many passwords are being checked right now; retry in a second', { 'retry-after': '1' }, 'service_unavailable'),
})

const hash = (password: string) => Bun.password.hash(password, { algorithm: 'argon2id' })

export function hashPassword(password: string): Promise<string> {
  return passwordWork.run(() => hash(password))
}

// Checked against when there is no hash (an unknown email, an account without a password), so every answer costs the same.
let dummyHash: Promise<string> | undefined

/** False for a wrong password and for a null hash, after the same argon2 work either way. */
export function verifyPassword(password: string, passwordHash: string | null): Promise<boolean> {
  return passwordWork.run(async () => {
    if (passwordHash !== null) return Bun.password.verify(password, passwordHash)
    dummyHash ??= hash('not-a-real-password')
    await Bun.password.verify(password, await dummyHash)
    return false
  })
}
