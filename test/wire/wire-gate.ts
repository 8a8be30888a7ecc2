// A TCP gate in front of pglite-socket that lets one client exchange run at a time, so a pooled client sees
// what a real Postgres gives it: its Parse/Bind/Execute/Sync sequences and transactions are not interleaved
// with other connections' messages in PGlite's single backend.
//
// Why: pglite-socket 0.2.17 queues single protocol messages across connections and pins a connection only
// while a SQL transaction is open, so two pooled connections' extended-protocol batches interleave and fail
// with `portal "" does not exist` (electric-sql/pglite#1046, fix proposed in #977). This gate holds a global
// turn from a connection's first message until the server's ReadyForQuery says "idle" with nothing pending
// (across Flush round trips and whole transactions), which is the isolation a real server gives per backend.
// Known residue of the single backend, not fixed here: session state (advisory locks, SET, prepared
// statements) is shared by every connection, and a connection that waits on another while it holds a
// transaction open hangs (on a real server the other connection would simply run).
import { connect, createServer, type Server, type Socket } from 'node:net'

const SYNC = 0x53 // 'S'
const QUERY = 0x51 // 'Q'
const TERMINATE = 0x58 // 'X'
const READY_FOR_QUERY = 0x5a // 'Z'
const IDLE = 0x49 // 'I'
const SSL_REQUEST = 80877103
const CANCEL_REQUEST = 80877102

export interface WireGate {
  port: number
  /** Connections accepted so far, and the most that were open at once. */
  stats(): { connections: number; open: number; peakOpen: number }
  close(): Promise<void>
}

interface Conn {
  client: Socket
  upstream: Socket
  /** Client bytes not yet split into whole messages. */
  inbox: Buffer
  /** Whole messages waiting for this connection's turn. */
  waiting: Buffer[]
  started: boolean
  /** An SSLRequest was forwarded: its one-byte answer ('N') precedes the typed replies. */
  sslAnswerDue: boolean
  /** Sync/Query messages sent whose ReadyForQuery has not come back. */
  outstanding: number
  /** Upstream bytes not yet split into whole messages (only scanned for ReadyForQuery). */
  replies: Buffer
}

export async function startWireGate(upstreamHost: string, upstreamPort: number): Promise<WireGate> {
  const conns = new Set<Conn>()
  const queue: Conn[] = []
  let holder: Conn | null = null
  let accepted = 0
  let peakOpen = 0

  const grant = () => {
    while (!holder && queue.length > 0) {
      const next = queue.shift()!
      if (!conns.has(next)) continue
      holder = next
      flush(next)
    }
  }

  const release = (conn: Conn) => {
    if (holder !== conn) return
    holder = null
    grant()
  }

  const flush = (conn: Conn) => {
    for (const message of conn.waiting) {
      if (message[0] === SYNC || message[0] === QUERY) conn.outstanding++
      conn.upstream.write(message)
    }
    conn.waiting = []
  }

  /** Splits the client's bytes into messages; the first is the untyped startup message. */
  const onClientData = (conn: Conn, data: Buffer) => {
    conn.inbox = Buffer.concat([conn.inbox, data])
    for (;;) {
      const header = conn.started ? 5 : 4
      if (conn.inbox.length < header) break
      const length = conn.started ? 1 + conn.inbox.readInt32BE(1) : conn.inbox.readInt32BE(0)
      if (conn.inbox.length < length) break
      const message = conn.inbox.subarray(0, length)
      conn.inbox = conn.inbox.subarray(length)
      const code = conn.started || length < 8 ? 0 : message.readInt32BE(4)
      if (code === SSL_REQUEST || code === CANCEL_REQUEST) {
        // Answered by pglite-socket itself, without PGlite: no turn needed, and no ReadyForQuery follows.
        conn.sslAnswerDue ||= code === SSL_REQUEST
        conn.upstream.write(Buffer.from(message))
        continue
      }
      if (!conn.started) {
        conn.started = true
        conn.outstanding++ // the startup reply ends with ReadyForQuery too
      } else if (message[0] === TERMINATE) {
        continue // answered by closing the upstream socket instead (pglite-socket then rolls back)
      }
      conn.waiting.push(Buffer.from(message))
    }
    if (conn.waiting.length === 0) return
    if (holder === conn) flush(conn)
    else if (!queue.includes(conn)) {
      queue.push(conn)
      grant()
    }
  }

  /** Passes the server's bytes through and ends the turn when the backend is idle with nothing pending. */
  const onUpstreamData = (conn: Conn, data: Buffer) => {
    conn.client.write(data)
    conn.replies = Buffer.concat([conn.replies, data])
    if (conn.sslAnswerDue && conn.replies.length > 0) {
      conn.sslAnswerDue = false
      conn.replies = conn.replies.subarray(1)
    }
    while (conn.replies.length >= 5) {
      const length = 1 + conn.replies.readInt32BE(1)
      if (conn.replies.length < length) break
      if (conn.replies[0] === READY_FOR_QUERY) {
        conn.outstanding = Math.max(0, conn.outstanding - 1)
        if (conn.outstanding === 0 && conn.replies[5] === IDLE && conn.waiting.length === 0) release(conn)
      }
      conn.replies = conn.replies.subarray(length)
    }
  }

  const drop = (conn: Conn) => {
    if (!conns.delete(conn)) return
    conn.client.destroy()
    conn.upstream.end()
    release(conn)
  }

  const server: Server = createServer((client) => {
    accepted++
    const upstream = connect(upstreamPort, upstreamHost)
    const conn: Conn = {
      client,
      upstream,
      inbox: Buffer.alloc(0),
      waiting: [],
      started: false,
      sslAnswerDue: false,
      outstanding: 0,
      replies: Buffer.alloc(0),
    }
    conns.add(conn)
    peakOpen = Math.max(peakOpen, conns.size)
    client.setNoDelay(true)
    upstream.setNoDelay(true)
    client.on('data', (data: Buffer) => onClientData(conn, data))
    upstream.on('data', (data: Buffer) => onUpstreamData(conn, data))
    client.on('close', () => drop(conn))
    upstream.on('close', () => drop(conn))
    client.on('error', () => drop(conn))
    upstream.on('error', () => drop(conn))
  })

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const address = server.address()
  if (address === null || typeof address !== 'object') throw new Error('wire gate: no address')

  return {
    port: address.port,
    stats: () => ({ connections: accepted, open: conns.size, peakOpen }),
    close: async () => {
      for (const conn of [...conns]) drop(conn)
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
