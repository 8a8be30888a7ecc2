// Reading what is left of a refused request body, so the client can read the refusal.
/** How much of an oversized body is read and dropped before the 413 goes out. A server that answers and closes
 * while the client is still sending makes the client's TCP stack see a reset, which throws away the answer
 * unread; past this much, the client gets the reset. */
const DRAIN_BYTES = 16 * 1024 * 1024

/** Reads what is left of a refused body (up to DRAIN_BYTES), so the client can read the refusal. */
export async function drainBody(body: ReadableStream<Uint8Array> | null, reader = body?.getReader()): Promise<void> {
  if (!reader) return
  let drained = 0
  try {
    while (drained < DRAIN_BYTES) {
      const { done, value } = await reader.read()
      if (done) return
      drained += value.byteLength
    }
  } catch {
    // The client went away: nothing left to answer.
  }
  void reader.cancel().catch(() => {})
}
