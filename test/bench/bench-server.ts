// What the HTTP benchmarks share: the embedder they run with, a listening server on the embedded default
// (PGlite, in memory), and a fresh user's API key — the way a client signs up and calls the service.
import { createApp } from '../../src/app'
import { loadConfig } from '../../src/config'
import { createDeps } from '../../src/create-deps'
import { REAL_MODEL_ENV, realModelMissing } from '../real-model'

/**
 * The benchmark's environment: `defaults`, then the caller's environment, then the embedder — EMBEDDING_PROVIDER
 * when set, else the real model (bge-small-en-v1.5 int8 from ../shared/models) when its folder is there, else
 * the hash embedder.
 */
export function benchEnv(defaults: Record<string, string>): Record<string, string | undefined> {
  const embedder = process.env.EMBEDDING_PROVIDER
    ? {}
    : realModelMissing(process.env, undefined, () => {})
      ? { EMBEDDING_PROVIDER: 'hash' }
      : REAL_MODEL_ENV
  return { ...defaults, ...process.env, ...embedder }
}

/** The app listening on a free loopback port; `origin` is the one cookie-authenticated writes must name. */
export async function startBenchServer(env: Record<string, string | undefined>) {
  const deps = await createDeps(loadConfig(env))
  const server = Bun.serve({ port: 0, fetch: createApp(deps).fetch, maxRequestBodySize: 8 * 1024 * 1024 })
  return { deps, server, base: `http://127.0.0.1:${server.port}`, origin: deps.config.baseUrl }
}

/** Signs a new user up and makes an API key: the headers of that user's JSON requests. */
export async function signUpWithKey(base: string, origin: string, email: string) {
  const signUp = await fetch(`${base}/api/auth/sign-up`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin },
    body: JSON.stringify({ email, password: 'benchmark password' }),
  })
  if (!signUp.ok) throw new Error(`sign-up ${email}: ${signUp.status} ${await signUp.text()}`)
  const cookie = signUp.headers.getSetCookie()[0]!.split(';')[0]!
  const { key } = (await (
    await fetch(`${base}/api/keys`, { method: 'POST', headers: { cookie, origin, 'content-type': 'application/json' }, body: '{}' })
  ).json()) as { key: string }
  return { authorization: `Bearer ${key}`, 'content-type': 'application/json' }
}
