// The service listening on a loopback port with every optional integration pointed at a local fake (Stripe,
// GitHub sign-in, Confluence, Google Drive, Notion, a real SMTP server for mail), so no route answers "not configured" and every input
// reaches the code that reads it.
import { startConfluenceFake } from '../../fakes/confluence'
import { startGoogleDriveFake } from '../../fakes/google-drive'
import { startNotionFake } from '../../fakes/notion'
import { startFakeGitHub } from '../../fakes/oauth-provider'
import { startSmtp } from '../../fakes/smtp'
import { startFakeStripe } from '../../fakes/stripe'
import { createTestApp, type TestApp } from '../../harness'
import { serveApp } from '../../../src/http/serve'

export interface FuzzServer {
  url: string
  t: TestApp
  confluence: ReturnType<typeof startConfluenceFake>
  stop(): Promise<void>
}

/** Limits high enough that a few thousand requests meet validation, not 402 or 429 (the clock is frozen). */
const GENEROUS: Record<string, string> = Object.fromEntries(
  ['API_KEYS', 'WORKSPACES', 'DOCUMENTS', 'CONNECTORS', 'SEARCH_PER_MIN', 'ASK_PER_MIN', 'EMBEDDINGS_PER_MIN'].map((limit) => [
    `PLAN_FREE_${limit}`,
    '1000000',
  ]),
)

export async function startFuzzServer(): Promise<FuzzServer> {
  // BASE_URL must name the port, which is known only once listening: listen first, then build the app.
  let handle: ((request: Request) => Response | Promise<Response>) | undefined
  // The service's own way of serving (src/http/serve.ts): raw paths checked, the app's body limit in charge.
  const server = serveApp(
    { fetch: (request) => (handle ? handle(request) : new Response('starting', { status: 503 })) },
    { hostname: '127.0.0.1', port: 0 },
  )
  const url = `http://127.0.0.1:${server.port}`
  const callbackUrl = `${url}/api/connectors/oauth/callback`
  const stripe = startFakeStripe({ secretKey: 'sk_test_fuzz', prices: ['price_pro_fuzz'] })
  const github = startFakeGitHub({ callbackUrl: `${url}/api/auth/oauth/github/callback` })
  const confluence = startConfluenceFake({ callbackUrl })
  const drive = startGoogleDriveFake({ callbackUrl })
  const notion = startNotionFake({ callbackUrl })
  const smtp = await startSmtp()
  const fakes = [stripe, github, confluence, drive, notion, smtp]
  const t = await createTestApp({
    env: {
      BASE_URL: url,
      EMBEDDING_PROVIDER: 'hash',
      STRIPE_SECRET_KEY: 'sk_test_fuzz',
      STRIPE_WEBHOOK_SECRET: 'whsec_fuzz',
      STRIPE_PRICE_PRO: 'price_pro_fuzz',
      STRIPE_API_URL: stripe.apiUrl,
      SMTP_URL: smtp.url,
      ...github.env,
      ...confluence.env,
      ...drive.env,
      ...notion.env,
      ...GENEROUS,
    },
  })
  handle = (request) => t.app.fetch(request)
  return {
    url,
    t,
    confluence,
    async stop() {
      await server.stop(true)
      await Promise.all(fakes.map((f) => f.stop()))
      await t.close()
    },
  }
}
