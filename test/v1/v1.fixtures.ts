// Shared by the /v1 client tests: a listening server (port 0) over a test app, optionally with service-rag on
// the local fake OpenAI-compatible provider (test/fakes/openai-chat.ts), and a user holding the backup policy.
import { startFakeOpenAIChat, type FakeOpenAIChat } from '../fakes/openai-chat'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { add } from '../search/search.fixtures'

export interface Listening {
  t: TestApp
  url: string
  /** The /v1 base URL a client is given. */
  baseURL: string
  /** The fake provider behind service-rag, when started with `provider: true`. */
  fake?: FakeOpenAIChat
  stop(): Promise<void>
}

export async function listen(options: { provider?: boolean; env?: Record<string, string> } = {}): Promise<Listening> {
  const fake = options.provider ? startFakeOpenAIChat({ apiKey: 'sk-test' }) : undefined
  const providerEnv: Record<string, string> = fake
    ? { CHAT_MODEL: 'fake-chat', OPENAI_BASE_URL: fake.baseUrl, OPENAI_API_KEY: 'sk-test' }
    : {}
  const t = await createTestApp({ env: { EMBEDDING_PROVIDER: 'hash', EMBEDDING_DIMENSIONS: '64', ...providerEnv, ...options.env } })
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: t.app.fetch })
  const url = `http://127.0.0.1:${server.port}`
  return {
    t,
    url,
    baseURL: `${url}/v1`,
    fake,
    async stop() {
      await server.stop(true)
      await t.close()
      await fake?.stop()
    },
  }
}

export const BACKUPS = {
  title: 'Backup policy',
  body: 'Backups of the billing database run nightly at 02:00 UTC. They are kept for 35 days in cold storage.',
}
export const QUESTION = 'How long are billing database backups kept?'

export async function userWithBackups(s: Listening): Promise<{ user: TestUser; doc: { id: string } }> {
  const user = await s.t.signUp()
  const doc = await add(s.t, user, BACKUPS)
  return { user, doc }
}

/** The error a call rejects with (the test fails if it resolves). */
export async function rejection(call: Promise<unknown>): Promise<unknown> {
  try {
    await call
  } catch (error) {
    return error
  }
  throw new Error('expected the call to fail')
}

/**
 * Refuses, and records, every fetch to a host other than 127.0.0.1 while the client libraries run (tracing
 * exporters, tokenizer downloads, telemetry): a test asserts the list stays empty. Returns the restore function.
 */
export function guardNetwork(): { outbound: string[]; restore(): void } {
  const original = globalThis.fetch
  const outbound: string[] = []
  const guarded = (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input))
    if (url.hostname !== '127.0.0.1') {
      outbound.push(url.href)
      return Promise.reject(new Error(`no network in tests: ${url.href}`))
    }
    return original(input, init)
  }
  globalThis.fetch = Object.assign(guarded, original) as typeof fetch
  return { outbound, restore: () => void (globalThis.fetch = original) }
}
