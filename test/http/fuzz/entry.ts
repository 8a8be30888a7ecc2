// The real service as it ships: `bun src/index.ts` in its own fresh process (in-memory database, hash
// embedder), with a signed-up user. For what only the real entry shows: Bun's own limits, encoded dot segments
// resolved before routing, and a wedged database that stops the whole process.
import { createServer } from 'node:net'
import { rawRequest, type RawRequest, type RawResponse } from './raw-http'

export interface Entry {
  url: string
  key: string
  cookie: string
  /** One request over a raw socket, exactly as written; rejects on timeout. */
  raw(request: RawRequest, timeoutMs?: number): Promise<RawResponse>
  /** A JSON request with the user's key; rejects on timeout. */
  json(method: string, path: string, body?: unknown, timeoutMs?: number): Promise<{ status: number; body: any }>
  /** The exit code once the process has exited, else null. */
  exited(): number | null
  stop(): Promise<void>
}

const ROOT = new URL('../../../', import.meta.url).pathname

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })
}

export async function startEntry(env: Record<string, string> = {}): Promise<Entry> {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  // Exactly as `bun start` runs it (the start script carries Bun's flags, e.g. its header limit).
  const start = ((await Bun.file(`${ROOT}/package.json`).json()) as { scripts: { start: string } }).scripts.start.split(' ')
  const child = Bun.spawn(start, {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      BASE_URL: url,
      DATA_DIR: 'memory://',
      EMBEDDING_PROVIDER: 'hash',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      ...env,
    },
    stdout: 'ignore',
    stderr: 'inherit',
  })
  let code: number | null = null
  void child.exited.then((c) => (code = c))
  const stop = async () => {
    child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), 3_000)
    await child.exited
    clearTimeout(timer)
  }
  try {
    for (let i = 0; ; i++) {
      if (code !== null) throw new Error(`bun src/index.ts exited with code ${code} before answering`)
      const up = await fetch(`${url}/`, { signal: AbortSignal.timeout(2_000) }).then(
        (r) => r.ok,
        () => false,
      )
      if (up) break
      if (i > 150) throw new Error('bun src/index.ts did not answer GET / within 30 s')
      await Bun.sleep(200)
    }
    const signUp = await fetch(`${url}/api/auth/sign-up`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'entry@example.com', password: 'correct horse battery' }),
    })
    const cookie = signUp.headers.get('set-cookie')!.split(';')[0]!
    const created = await fetch(`${url}/api/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie, origin: url },
      // Every scope: the fuzz reaches the key routes too.
      body: '{"label":"entry","scopes":["read","write","keys"]}',
    })
    const { key } = (await created.json()) as { key: string }
    if (!key) throw new Error(`no key: ${created.status}`)
    const base = new URL(url)
    // A hang names the request that hung.
    const raw = (request: RawRequest, timeoutMs = 10_000) =>
      rawRequest(base, request, timeoutMs).catch((error: Error) => {
        throw new Error(`${request.method} ${request.target.slice(0, 120)}: ${error.message}`)
      })
    const json = async (method: string, path: string, body?: unknown, timeoutMs = 10_000) => {
      const headers: Record<string, string> = { authorization: `Bearer ${key}` }
      if (body !== undefined) headers['content-type'] = 'application/json'
      const res = await raw(
        { method, target: path, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) },
        timeoutMs,
      )
      let parsed: unknown = res.body
      try {
        parsed = JSON.parse(res.body)
      } catch {}
      return { status: res.status, body: parsed as any }
    }
    return { url, key, cookie, raw, json, exited: () => code, stop }
  } catch (error) {
    await stop()
    throw error
  }
}
