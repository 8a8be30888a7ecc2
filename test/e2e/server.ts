// startServer(): the real service listening on a loopback port (in-memory PGlite clone, as in the harness),
// for end-to-end tests that go through HTTP, cookies and Origin checks the way a client does.
import { createTestApp, type TestApp } from '../harness'
import { serveApp } from '../../src/http/serve'

export interface E2EServer {
  /** `http://127.0.0.1:<port>`, also the app's BASE_URL, so it is the allowed Origin for cookie writes. */
  url: string
  app: TestApp['app']
  deps: TestApp['deps']
  /** Stops listening (closing open connections), then closes the database. */
  stop(): Promise<void>
}

/** `env` may depend on the server's URL (a fake OAuth provider must know the callback before the app starts). */
export type ServerEnv = Record<string, string> | ((url: string) => Record<string, string>)

export async function startServer(options: { env?: ServerEnv } = {}): Promise<E2EServer> {
  // The port is only known once listening, and BASE_URL must name it: listen first, then build the app.
  let handle: ((request: Request) => Response | Promise<Response>) | undefined
  // The service's own way of serving (src/http/serve.ts): raw paths checked, the app's body limit in charge.
  const server = serveApp(
    { fetch: (request) => (handle ? handle(request) : new Response('starting', { status: 503 })) },
    { hostname: '127.0.0.1', port: 0 },
  )
  const url = `http://127.0.0.1:${server.port}`
  let t: TestApp
  try {
    const env = typeof options.env === 'function' ? options.env(url) : options.env
    t = await createTestApp({ env: { BASE_URL: url, ...env } })
  } catch (error) {
    await server.stop(true)
    throw error
  }
  const app = t.app
  handle = (request) => app.fetch(request)
  return {
    url,
    app,
    deps: t.deps,
    async stop() {
      await server.stop(true)
      await t.close()
    },
  }
}
