// The bound on argon2 work, counted rather than timed: a limit runs at most `concurrency` tasks, queues at most
// `queue`, refuses the rest at once; and every real hash and check of the process goes through one such limit.
import { describe, expect, test } from 'bun:test'
import { AppError } from '../http/errors'
import { createWorkLimit, hashPassword, PASSWORD_CONCURRENCY, passwordWork, verifyPassword } from './passwords'

/** A task that runs until the test lets it finish. */
function gate() {
  let open!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  let started = false
  return { task: () => ((started = true), opened), open: () => open(), started: () => started }
}

describe('a work limit', () => {
  test('runs 2 at once, queues 3, refuses the 6th and 7th at once; the queue drains in order', async () => {
    const limit = createWorkLimit({ concurrency: 2, queue: 3, busy: () => new AppError(503, 'busy') })
    const gates = Array.from({ length: 7 }, gate)
    const runs = gates.map((g) =>
      limit.run(g.task).then(
        () => 'done',
        (error) => (error as AppError).status,
      ),
    )
    await Bun.sleep(0)
    expect(limit.stats()).toMatchObject({ running: 2, waiting: 3 })
    expect(gates.map((g) => g.started())).toEqual([true, true, false, false, false, false, false])
    expect(await runs[5]).toBe(503)
    expect(await runs[6]).toBe(503)

    gates[1]!.open()
    await runs[1]
    await Bun.sleep(0)
    // The freed slot went to the first in line, not to a newcomer, and two still run.
    expect(gates.map((g) => g.started())).toEqual([true, true, true, false, false, false, false])
    expect(limit.stats()).toMatchObject({ running: 2, waiting: 2 })

    for (const g of gates) g.open()
    expect(await Promise.all(runs.slice(0, 5))).toEqual(['done', 'done', 'done', 'done', 'done'])
    expect(limit.stats()).toEqual({ running: 0, waiting: 0, peak: 2, admitted: 5 })
  })

  test('a task that fails frees its slot', async () => {
    const limit = createWorkLimit({ concurrency: 1, queue: 0, busy: () => new Error('busy') })
    await expect(limit.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom')
    expect(await limit.run(async () => 'next')).toBe('next')
  })
})

describe('password hashing', () => {
  test('six hashes at once, then seven checks at once: argon2 runs exactly as many at a time as the limit, never more', async () => {
    const before = passwordWork.stats().admitted
    const hashes = await Promise.all(Array.from({ length: 6 }, (_, i) => hashPassword(`password number ${i}`)))
    const checks = await Promise.all([
      ...hashes.map((h, i) => verifyPassword(`password number ${i}`, h)),
      verifyPassword('anything at all', null),
    ])
    expect(checks).toEqual([true, true, true, true, true, true, false])
    const stats = passwordWork.stats()
    expect(stats.admitted - before).toBe(13)
    expect(stats.peak).toBe(PASSWORD_CONCURRENCY)
    expect(stats.running).toBe(0)
  })
})
