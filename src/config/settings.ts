// The settings table: every environment variable the service reads, its reader, default and README words, in one
// place. The Config type is what this table reads into, loadConfig reads it, and the README's table of settings is
// printed from it (`bun run readme:settings`); a setting added here is in all three.
import { PLANS, type PlanLimits, planLimits } from './limits'
import { oauthApps } from './oauth-apps'
import { ConfigError } from './parsers'
import {
  allowedOrigins,
  encryptionKey,
  KEYWORD_MEMORY_DEFAULT_BYTES,
  keywordCacheBytes,
  mailConfig,
  modelAliases,
  trustProxy,
  version,
} from './readers'
import { custom, derived, flag, int, oneOf, text, url } from './setting'

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const
export const EMBEDDING_PROVIDERS = ['local', 'openai', 'hash', 'none'] as const
/** Weights of a local ONNX model: int8 (`onnx/model_quantized.onnx`), float32 (`model.onnx`), float16 (`model_fp16.onnx`). */
export const EMBEDDING_DTYPES = ['q8', 'fp32', 'fp16'] as const
/** WAL_MAX_MB when not set: the embedded database checkpoints to keep pg_wal within it (db/pglite-checkpoints.ts). */
export const DEFAULT_WAL_MAX_MB = 256

// The settings other settings' defaults are made of.
const port = int({ env: 'PORT', default: 3000, min: 0, max: 65535, doc: 'HTTP port' })
const baseUrl = url({
  env: 'BASE_URL',
  default: derived('`http://localhost:$PORT`', ({ get }) => `http://localhost:${get(port)}`),
  doc: 'public URL; its origin may send cookie-authenticated writes. MCP clients that connect by URL must use `$BASE_URL/mcp` exactly (the OAuth metadata names it)',
})
const dataDir = text({
  env: 'DATA_DIR',
  default: './data',
  doc: 'embedded database (`$DATA_DIR/pglite`) and generated key (`$DATA_DIR/encryption.key`); one process at a time (see Operations)',
})
const databaseUrl = text({
  env: 'DATABASE_URL',
  doc: '`postgres://…`: use PostgreSQL (+ pgvector) instead of the embedded PGlite',
  check: (value) => {
    if (!/^postgres(ql)?:\/\//.test(value)) throw new ConfigError('DATABASE_URL must be a postgres:// or postgresql:// URL')
  },
})
const stripeSecretKey = text({
  env: 'STRIPE_SECRET_KEY',
  doc: 'Stripe billing (`sk_live_…`/`sk_test_…`): checkout, portal and subscription routes; unset → they answer 503 and every account is on `DEFAULT_PLAN` — see [Sign-in providers and billing](#sign-in-providers-and-billing)',
})
const embeddingProvider = oneOf({
  env: 'EMBEDDING_PROVIDER',
  values: EMBEDDING_PROVIDERS,
  default: 'local',
  doc: '`local` (transformers.js in-process, bge-small by default), `openai` (any OpenAI-compatible `/v1/embeddings`), `hash` (dependency-free feature hashing, for tests), `none`',
})
// One endpoint serves both models.
const openaiBaseUrl = url({
  env: 'OPENAI_BASE_URL',
  default: null,
  doc: 'the OpenAI-compatible endpoint of `CHAT_MODEL` and of the `openai` embedder (OpenAI, Ollama `http://localhost:11434/v1`, vLLM, …)',
})
const openaiApiKey = text({ env: 'OPENAI_API_KEY', doc: 'the key sent to that endpoint' })

// In the order the settings are read: of two bad variables, the first named here is the one reported.
export const SETTINGS = {
  port,
  baseUrl,
  dataDir,
  databaseUrl,
  /** The plan of every account without a paid subscription, read at each request (not stored with the account). */
  defaultPlan: oneOf({
    env: 'DEFAULT_PLAN',
    values: PLANS,
    // Without billing nobody can buy their way past a cap, so a self-hosted account has none unless asked.
    default: derived('`unlimited`; `free` with `STRIPE_SECRET_KEY`', ({ get }) => (get(stripeSecretKey) ? 'free' : 'unlimited')),
    doc: 'plan of every account without a paying subscription (`free`, `pro`, `unlimited`), read at each request: changing it and restarting moves existing accounts too',
  }),
  /** Origins allowed to send cookie-authenticated state-changing requests (the service's own is always allowed). */
  allowedOrigins: custom(
    [
      {
        env: 'ALLOWED_ORIGINS',
        default: null,
        doc: 'comma-separated extra origins (e.g. the browser extension) allowed for CORS and cookie-authenticated writes',
      },
    ],
    ({ env, get }) => allowedOrigins(env, get(baseUrl)),
  ),
  /** 32 bytes for AES-256-GCM. */
  encryptionKey: custom(
    [
      {
        env: 'ENCRYPTION_KEY',
        default: 'generated once under `DATA_DIR`',
        doc: '32 bytes (base64 or 64 hex chars) for AES-256-GCM of secrets at rest; **required** with `DATABASE_URL`',
      },
    ],
    ({ env, get }) => encryptionKey(env, get(dataDir), get(databaseUrl)),
  ),
  plans: custom(
    [
      {
        env: 'PLAN_<PLAN>_<LIMIT>',
        default: 'see below',
        doc: 'override one limit of one plan (`FREE`, `PRO`, `UNLIMITED`) with a number or `unlimited`, e.g. `PLAN_FREE_DOCUMENTS=5000`, `PLAN_UNLIMITED_SEARCH_PER_MIN=6000`',
      },
    ],
    ({ env }) => planLimits(env),
  ),
  sessionTtlDays: int({
    env: 'SESSION_TTL_DAYS',
    default: 30,
    min: 1,
    max: 365,
    doc: 'session lifetime; renewed when less than half is left',
  }),
  activityRetentionDays: int({
    env: 'ACTIVITY_RETENTION_DAYS',
    default: 365,
    min: 0,
    max: 36_500,
    doc: 'days an activity entry is kept (`0`: for ever); see "Activity and history"',
  }),
  logLevel: oneOf({
    env: 'LOG_LEVEL',
    values: LOG_LEVELS,
    default: 'info',
    doc: '`debug`, `info`, `warn`, `error`, `silent` (JSON lines on stderr)',
  }),
  // Set by `bun run` (else read from package.json): not a setting, so no row.
  version: custom([], ({ env }) => version(env)),
  embeddings: {
    provider: embeddingProvider,
    openaiBaseUrl,
    model: text({
      env: 'EMBEDDING_MODEL',
      default: derived('`Xenova/bge-small-en-v1.5`', ({ get }) => {
        const provider = get(embeddingProvider)
        if (provider === 'openai') throw new ConfigError('EMBEDDING_MODEL is required when EMBEDDING_PROVIDER=openai')
        return provider === 'local' ? 'Xenova/bge-small-en-v1.5' : 'hash'
      }),
      doc: 'model id (required for `openai`, e.g. `text-embedding-3-small`, `nomic-embed-text`)',
    }),
    /** A directory holding the local model's files; else it is downloaded once into DATA_DIR/models. */
    modelPath: text({
      env: 'EMBEDDING_MODEL_PATH',
      doc: 'directory holding `<EMBEDDING_MODEL>/{config.json,tokenizer.json,tokenizer_config.json,onnx/<weights>}` (for `local`; set → never downloads; see [Embedding model files](#embedding-model-files))',
    }),
    dtype: oneOf({
      env: 'EMBEDDING_DTYPE',
      values: EMBEDDING_DTYPES,
      default: null,
      doc: 'weights of the `local` model: `q8` (int8, `onnx/model_quantized.onnx`), `fp32` (`onnx/model.onnx`), `fp16` (`onnx/model_fp16.onnx`); unset → the file the folder holds, int8 first, and `q8` when downloading',
    }),
    dimensions: int({ env: 'EMBEDDING_DIMENSIONS', default: 512, min: 8, max: 4096, doc: 'dimensions of the `hash` embedder' }),
    openaiApiKey,
    /** Where a local model runs (src/embedding/inference-process.ts). */
    inference: {
      isolation: oneOf({
        env: 'EMBEDDING_ISOLATION',
        values: ['process', 'thread'],
        default: 'process',
        doc: 'where the `local` model runs: `process` (a child process at lower scheduling priority, restarted if it dies, ended with the service) or `thread` (a worker thread of the service; ONNX Runtime bounded to one core fewer than the machine has) — see [Embedding throughput](#embedding-throughput)',
      }),
      nice: int({
        env: 'EMBEDDING_NICE',
        default: 10,
        min: 0,
        max: 19,
        doc: "niceness (0–19) of that child process: it takes every idle cycle, and the service's own threads win the CPU when they need it",
      }),
      threads: int({
        env: 'EMBEDDING_THREADS',
        default: null,
        min: 1,
        max: 256,
        doc: "ONNX Runtime's intra-op threads for the `local` model; unset → every core (`process`) or one fewer (`thread`)",
      }),
    },
  },
  /** service-rag: an OpenAI-compatible chat model, or null → the built-in extractive answerer. */
  chat: {
    model: text({
      env: 'CHAT_MODEL',
      doc: 'chat model id at that endpoint for `service-rag`; unset → the built-in extractive answerer',
    }),
    openaiBaseUrl,
    openaiApiKey,
  },
  extractAfterMessages: int({
    env: 'EXTRACT_AFTER_MESSAGES',
    default: 20,
    min: 0,
    max: 100_000,
    doc: 'with a `CHAT_MODEL`, this many new messages in a thread queue an extraction of learnings (drafts awaiting approval); 0 = only on request (`POST /api/threads/:id/extract`)',
  }),
  /** How an uploaded file is read (src/files/extract-file.ts). */
  files: {
    timeoutMs: int({
      env: 'FILE_TIMEOUT_SECONDS',
      default: 60,
      min: 1,
      max: 3600,
      times: 1000,
      doc: 'an uploaded file is read in a subprocess killed past this many seconds (README "Files")',
    }),
    maxMemoryBytes: int({
      env: 'FILE_MEMORY_MB',
      default: 1024,
      min: 64,
      max: 65_536,
      times: 1024 ** 2,
      doc: '… or past this much resident memory',
    }),
    maxUnpackedBytes: int({
      env: 'FILE_UNPACKED_MB',
      default: 256,
      min: 1,
      max: 65_536,
      times: 1024 ** 2,
      doc: 'a DOCX, PPTX, XLSX or ODF file that would unpack past this is refused before it is inflated',
    }),
  },
  /** OAuth apps by provider (sign-in and connectors); null when its client id or secret is unset (503). */
  oauth: custom(
    [
      {
        env: '<PROVIDER>_CLIENT_ID',
        default: null,
        doc: 'with `<PROVIDER>_CLIENT_SECRET`, the OAuth app of `GITHUB`, `GOOGLE` (sign-in; Google Drive too), `CONFLUENCE` or `NOTION` (connectors); unset → that provider answers 503 — see [Sign-in providers and billing](#sign-in-providers-and-billing) and [Connectors](#connectors)',
      },
      { env: '<PROVIDER>_CLIENT_SECRET', default: null, doc: "that app's secret" },
      {
        env: '<PROVIDER>_<AUTH|TOKEN|API|REVOKE>_URL',
        default: "the provider's",
        doc: "the provider's authorization, token, REST API and revocation endpoints (tests point them at local fakes)",
      },
    ],
    ({ env }) => oauthApps(env),
  ),
  /** Stripe billing; each part null when its variable is unset (its routes answer 503). */
  stripe: {
    secretKey: stripeSecretKey,
    webhookSecret: text({
      env: 'STRIPE_WEBHOOK_SECRET',
      doc: '`whsec_…`, the signing secret of the webhook endpoint `POST /webhooks/stripe`; unset → the webhook answers 503',
    }),
    pricePro: text({ env: 'STRIPE_PRICE_PRO', doc: 'the recurring price of the pro plan (`price_…`)' }),
    apiUrl: url({ env: 'STRIPE_API_URL', default: 'https://api.stripe.com', doc: "Stripe's API (tests use a fake)" }),
  },
  workerInProcess: flag({
    env: 'WORKER_IN_PROCESS',
    default: true,
    doc: 'run the job worker inside the server; `false` when `bun run worker` runs it apart (PostgreSQL only: PGlite is one process)',
  }),
  connectorSyncIntervalMinutes: int({
    env: 'CONNECTOR_SYNC_INTERVAL_MINUTES',
    default: 60,
    min: 0,
    max: 7 * 24 * 60,
    doc: 'an active connector is synced again this long after its last run began (0 = only when asked)',
  }),
  dbWatchdogSeconds: int({
    env: 'DB_WATCHDOG_SECONDS',
    default: 60,
    min: 0,
    max: 24 * 60 * 60,
    doc: 'a server or worker whose database has not answered for this long logs one error line and exits (code 70) for its supervisor to restart it; `0` = never',
  }),
  /** The keyword index cache: users' keyword indexes held in the process (src/retrieval/keyword-cache.ts). The
   * variables keep their MEMORY names: they are the operators' contract. */
  keywordCache: {
    minDocuments: int({
      env: 'KEYWORD_MEMORY_MIN_DOCUMENTS',
      default: 1_000,
      min: 1,
      max: Number.MAX_SAFE_INTEGER,
      doc: 'the keyword index cache holds the keyword indexes of users with at least this many documents — see Search',
    }),
    maxBytes: custom(
      [
        {
          env: 'KEYWORD_MEMORY_MAX_BYTES',
          default: `\`${KEYWORD_MEMORY_DEFAULT_BYTES}\` (256 MiB)`,
          doc: '… within this many bytes in all (0 = off; ~6.5 bytes a posting, 66 MB for 100k SciFact-sized documents)',
        },
        { env: 'KEYWORD_MEMORY_MAX_POSTINGS', default: null, doc: 'the older form of that budget, at 8 bytes a posting' },
      ],
      ({ env }) => keywordCacheBytes(env),
    ),
  },
  vectorCache: {
    minDocuments: int({
      env: 'VECTOR_MEMORY_MIN_DOCUMENTS',
      default: 1_000,
      min: 1,
      max: Number.MAX_SAFE_INTEGER,
      doc: 'the vector index cache (semantic ranking) holds the chunk vectors of users with at least this many documents — see Search',
    }),
    // ~1.6 KB a 384-dimension chunk (512 MB ≈ 300k chunks, ~200k abstract-sized documents).
    maxMegabytes: int({
      env: 'VECTOR_MEMORY_MAX_MB',
      default: 512,
      min: 0,
      max: 1_000_000,
      doc: '… within this many MB in all (0 = off); a user whose vector index alone passes it is ranked in SQL and the search `notice` says so, as for keyword',
    }),
  },
  // At least 128: PostgreSQL keeps two 16 MB segments whatever the setting, and a checkpoint starts at a quarter.
  walMaxMegabytes: int({
    env: 'WAL_MAX_MB',
    default: DEFAULT_WAL_MAX_MB,
    min: 128,
    max: 1_000_000,
    doc: "the embedded database's write-ahead log (`DATA_DIR/pglite/pg_wal`) stays within this (at least 128): it is checkpointed once a quarter of it is written, or 5 minutes after a write — see Operations",
  }),
  diskReserveMegabytes: int({
    env: 'DISK_RESERVE_MB',
    default: 256,
    min: 0,
    max: 1_000_000,
    doc: "writes are refused (507) while less than this is free on `DATA_DIR`'s disk (embedded database; 0 = only when full) — see Operations",
  }),
  oauthRegistrationsPerHour: int({
    env: 'OAUTH_REGISTRATIONS_PER_HOUR',
    default: 60,
    min: 1,
    max: 100_000,
    doc: "MCP clients' dynamic registrations (`POST /oauth/register`) accepted per client address per hour (see `TRUST_PROXY`)",
  }),
  /** Outgoing mail (address verification, password reset); null without SMTP_URL. */
  mail: custom(
    [
      {
        env: 'SMTP_URL',
        default: null,
        doc: '`smtp://user:pass@host:587` or `smtps://…`: mail the links that verify an address and reset a password; unset → no mail (`bun run admin` instead)',
      },
      { env: 'MAIL_FROM', default: "`no-reply@<BASE_URL's host>`", doc: 'the sender of those mails (`Memory <no-reply@example.com>`)' },
    ],
    ({ env, get }) => mailConfig(env, get(baseUrl)),
  ),
  /** Which socket peers are proxies whose X-Forwarded-For names the client (src/http/client-address.ts). */
  trustProxy: custom(
    [
      {
        env: 'TRUST_PROXY',
        default: '`false`',
        doc: 'which peers are proxies whose `X-Forwarded-For` names the client (sign-in throttle, registration quota): `false`, `true` (one proxy in front, any address), or a comma list of addresses and CIDR ranges — see [Accounts, keys and sign-in](#accounts-keys-and-sign-in)',
      },
    ],
    ({ env }) => trustProxy(env),
  ),
  /** Model ids that name one of the service's models, on top of the default table (src/modules/v1/model-aliases.ts). */
  modelAliases: custom(
    [
      {
        env: 'MODEL_ALIASES',
        default: null,
        doc: 'comma-separated `alias=service-rag` or `alias=service-embed`, added to the default alias table of `/v1` (an entry for a default id re-points it); a malformed entry stops the start naming it — see [Answers](#answers-agent-v1-and-mcp)',
      },
    ],
    ({ env }) => modelAliases(env),
  ),
}

export type { PlanLimits }
