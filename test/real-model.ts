// The real embedding model for the suites where vectors matter: bge-small-en-v1.5 (int8) read from
// ../shared/models next to the repository, never downloaded. Under CI (CI=true) a missing folder fails the
// run with a message saying what to put where; elsewhere the suite is skipped with the reason printed.
import { resolve } from 'node:path'
import { resolveLocalDtype } from '../src/embedding/local-model'

export const REAL_MODEL = 'Xenova/bge-small-en-v1.5'
/** `../shared/models` from the repository's root (this file is in <root>/test). */
export const REAL_MODEL_PATH = resolve(import.meta.dir, '..', '..', 'shared', 'models')
/** The environment of a test app that embeds with the real model. */
export const REAL_MODEL_ENV = { EMBEDDING_PROVIDER: 'local', EMBEDDING_MODEL: REAL_MODEL, EMBEDDING_MODEL_PATH: REAL_MODEL_PATH }

const inCi = (env: Record<string, string | undefined>) => ['true', '1', 'yes'].includes((env.CI ?? '').trim().toLowerCase())

/**
 * Why the real model cannot be used here, or null when it can. Throws under CI: a run there must never pass
 * by skipping the suites that test what the vectors do.
 */
export function realModelMissing(
  env: Record<string, string | undefined> = process.env,
  path = REAL_MODEL_PATH,
  print = console.warn,
): string | null {
  let reason: string | null = null
  try {
    resolveLocalDtype(REAL_MODEL, path, null)
  } catch (error) {
    reason = (error as Error).message
  }
  if (!reason) return null
  if (inCi(env)) {
    throw new Error(
      `CI=true and the real embedding model is not there: ${reason}. Put ${REAL_MODEL} (int8 ONNX and tokenizer) under ${path}; see README "Embedding model files"`,
    )
  }
  print(`skipping the real-model tests: ${reason} (under CI=true this fails the run)`)
  return reason
}
