// The one reader of process.env: every setting, validated at boot into a typed Config. The settings themselves
// (variable, default, bounds, README words) are the table in config/settings.ts; this file reads it.
import { ConfigError } from './config/parsers'
import { type ConfigOf, readTable } from './config/setting'
import { SETTINGS } from './config/settings'

export { type Plan, type PlanLimits, PLANS } from './config/limits'
export { OAUTH_PROVIDERS, type OAuthApp, type OAuthProvider } from './config/oauth-apps'
export { ConfigError } from './config/parsers'
export { isInMemory, SERVICE_MODELS, type ServiceModel } from './config/readers'
export { DEFAULT_WAL_MAX_MB, EMBEDDING_DTYPES, EMBEDDING_PROVIDERS } from './config/settings'

/** What the settings table reads into. */
export type Config = ConfigOf<typeof SETTINGS>
export type EmbeddingConfig = Config['embeddings']
export type EmbeddingDtype = NonNullable<EmbeddingConfig['dtype']>
/** Where a local model runs (src/embedding/inference-process.ts). */
export type InferenceOptions = EmbeddingConfig['inference']

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  return readTable(SETTINGS, env)
}

/** For entry points: the config, or exit with the message that names the bad variable. */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig()
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    console.error(`configuration error: ${error.message}`)
    process.exit(1)
  }
}
