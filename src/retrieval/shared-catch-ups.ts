// Catch-ups of a user's cached index (keyword or vector), shared by concurrent callers: a caller joins the
// catch-up that has not started yet, or queues one to start when the running one ends — never one that began
// before it, which might miss a write the caller committed. So any number of concurrent searches of one user cost
// at most two catch-up statements, and each sees every write committed before it asked.

interface Sync<T> {
  tail: Promise<unknown>
  pending: Promise<T> | null
}

export class SharedCatchUps<T> {
  private readonly syncs = new Map<string, Sync<T>>()

  /** `advance` run for `userId` after every catch-up already started for the user has ended, or joined if queued. */
  run(userId: string, advance: () => Promise<T>): Promise<T> {
    const sync = this.syncs.get(userId) ?? { tail: Promise.resolve(), pending: null }
    if (sync.pending) return sync.pending
    const run = sync.tail.then(() => {
      sync.pending = null
      return advance()
    })
    sync.pending = run
    const tail = (sync.tail = run.then(
      () => {},
      () => {},
    ))
    this.syncs.set(userId, sync)
    void tail.then(() => {
      if (sync.tail === tail) this.syncs.delete(userId)
    })
    return run
  }
}
