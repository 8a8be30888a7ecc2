/**
 * Resolves on the event loop's next turn, after the I/O callbacks waiting now (setImmediate, not a microtask): long
 * work on the process's one thread awaits it between steps so requests — and the embedded database's statements —
 * that arrived meanwhile are served first.
 */
export const nextTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve))
