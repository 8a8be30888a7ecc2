// service-embed: the embedding model chosen by config, behind the AI SDK's embed/embedMany. Vectors are
// recorded with the embedder's id, and a model that cannot be loaded leaves the service on keyword search —
// said in GET /, in search responses and in the log, never replaced silently by another model.
import { createOpenAI } from '@ai-sdk/openai'
import { embed, embedMany } from 'ai'
import type { Config, EmbeddingDtype } from '../config'
import type { Logger } from '../log'
import { hashEmbeddingModel, type EmbeddingModelV4 } from './hash-embedding'
import type { Priority } from './inference-messages'
import type { InferenceRunner } from './inference-process'
import { loadLocalEmbeddingModel, modelCacheDir } from './local-embedding'
import { localModelTraits } from './local-model'

export interface Embedder {
  /** Recorded with every vector (chunks.embedding_model); queries only compare vectors of this id. */
  id: string
  provider: 'local' | 'openai' | 'hash'
  model: EmbeddingModelV4
  /** Prepended to queries (bge models are trained with an instruction on the query side). */
  queryPrefix: string
  /** Weight of the semantic ranking in hybrid fusion: weak vectors must not dilute keyword ranking. */
  fusionWeight: number
  /** Cosine similarity from which two documents are suggested as linked. */
  linkThreshold: number
  /**
   * Each chunk is embedded after its document's title (embedding-text.ts): for models whose vectors carry
   * meaning. The hash embedder's vectors are bags of the chunk's own words, and stay so.
   */
  embedsTitle: boolean
  /**
   * Hybrid search's feedback step (retrieval/feedback.ts): how far the query moves toward the first result's
   * chunk before a second semantic pass; 0 turns it off. Measured for the local bge model only.
   */
  feedbackWeight: number
  /** The process (or thread) a local model runs in; closed with the service. */
  inference?: InferenceRunner
}

type Provider = Config['embeddings']['provider']

/**
 * Cosine from which a local model's documents are suggested as linked. Calibrated for bge-small-en-v1.5,
 * whose cosines crowd into 0.3–0.9 (unrelated texts still score 0.3–0.5), on the labelled pairs in
 * test/fixtures/link-pairs.ts; README "Link suggestions" records its precision and recall.
 */
export const LOCAL_LINK_THRESHOLD = 0.66

/** Hybrid feedback weight for a local bge model: 0.3–1.0 all helped on SciFact's dev claims, 0.6 most (bench:levers). */
export const LOCAL_FEEDBACK_WEIGHT = 0.6

/** What was configured and what is actually loaded: `provider` is `none` whenever no model is. */
export interface EmbeddingStatus {
  configured: { provider: Provider; model: string }
  provider: Provider
  /** The loaded model (`hash-512` for the hash embedder); null when none is. */
  model: string | null
  /** The weights a local model runs on (q8, fp32, fp16); null for other providers and when none is loaded. */
  dtype: EmbeddingDtype | null
  available: boolean
  reason?: string
  /** The reason cannot go away by retrying (EMBEDDING_PROVIDER=none, nowhere to download to). */
  permanent?: boolean
}

export async function loadEmbedder(config: Config, log: Logger): Promise<{ embedder: Embedder | null; status: EmbeddingStatus }> {
  const { provider, model } = config.embeddings
  const configured = { provider, model }
  const loaded = (embedder: Embedder, name: string, dtype: EmbeddingDtype | null = null) => ({
    embedder,
    status: { configured, provider, model: name, dtype, available: true },
  })
  const unavailable = (reason: string, permanent = false) => {
    if (provider !== 'none') log.warn('embeddings unavailable: searching by keyword only', { provider, model, reason })
    return {
      embedder: null,
      status: {
        configured,
        provider: 'none' as const,
        model: null,
        dtype: null,
        available: false,
        reason,
        ...(permanent ? { permanent } : {}),
      },
    }
  }
  if (provider === 'none') return unavailable('EMBEDDING_PROVIDER=none', true)
  if (provider === 'hash') {
    const dims = config.embeddings.dimensions
    const embedder: Embedder = {
      id: `hash-${dims}`,
      provider,
      model: hashEmbeddingModel(dims),
      queryPrefix: '',
      fusionWeight: 0.1,
      linkThreshold: 0.5,
      embedsTitle: false,
      feedbackWeight: 0,
    }
    return loaded(embedder, embedder.id)
  }
  if (provider === 'openai') {
    const openai = createOpenAI({
      baseURL: config.embeddings.openaiBaseUrl ?? undefined,
      apiKey: config.embeddings.openaiApiKey ?? 'unset',
    })
    const embedder: Embedder = {
      id: `openai:${model}`,
      provider,
      model: openai.embedding(model) as EmbeddingModelV4,
      queryPrefix: '',
      fusionWeight: 1,
      linkThreshold: 0.8,
      embedsTitle: true,
      feedbackWeight: 0,
    }
    try {
      await embed({ model: embedder.model, value: 'ping', maxRetries: 0, abortSignal: AbortSignal.timeout(10_000) })
    } catch (error) {
      return unavailable(`the embedding endpoint did not answer: ${(error as Error).message}`)
    }
    return loaded(embedder, model)
  }
  if (!config.embeddings.modelPath && !modelCacheDir(config.dataDir)) {
    return unavailable(
      'the model could not be loaded from the Hugging Face hub: DATA_DIR is in memory, so there is nowhere to download the model to; set EMBEDDING_MODEL_PATH',
      true,
    )
  }
  try {
    const started = performance.now()
    const local = await loadLocalEmbeddingModel(
      { model, modelPath: config.embeddings.modelPath, cacheDir: modelCacheDir(config.dataDir), dtype: config.embeddings.dtype },
      config.embeddings.inference,
      log,
    )
    const { queryPrefix } = localModelTraits(model)
    const embedder: Embedder = {
      id: `local:${model}`,
      provider,
      model: local.model,
      queryPrefix,
      fusionWeight: 1,
      linkThreshold: LOCAL_LINK_THRESHOLD,
      embedsTitle: true,
      feedbackWeight: LOCAL_FEEDBACK_WEIGHT,
      inference: local.runner,
    }
    log.info('embedding model loaded', {
      model,
      dtype: local.dtype,
      isolation: config.embeddings.inference.isolation,
      pid: local.runner.pid(),
      ms: Math.round(performance.now() - started),
    })
    return loaded(embedder, model, local.dtype)
  } catch (error) {
    const where = config.embeddings.modelPath ? `from ${config.embeddings.modelPath}` : 'from the Hugging Face hub'
    return unavailable(`the model could not be loaded ${where}: ${(error as Error).message}`)
  }
}

/**
 * A vector cosine similarity can use: finite and not zero. A text with nothing the model can embed (no
 * letters or digits, for the hash embedder) comes back as a zero vector, whose cosine is NaN — such a text
 * has no vector at all, rather than one that poisons every ranking it enters.
 */
export function usableVector(vector: number[]): number[] | null {
  let norm = 0
  for (const v of vector) {
    if (!Number.isFinite(v)) return null
    norm += v * v
  }
  return norm > 0 && Number.isFinite(norm) ? vector : null
}

/** How urgent a call is for a local model: a search's query first, then an API caller's texts, then the jobs'. */
const priority = (p: Priority) => ({ local: { priority: p } })

/** One vector per value, or null for a value with nothing to embed. `background` for the job worker's batches. */
export async function embedDocuments(
  embedder: Embedder,
  values: string[],
  urgency: Exclude<Priority, 'query'> = 'request',
): Promise<(number[] | null)[]> {
  if (values.length === 0) return []
  const { embeddings } = await embedMany({ model: embedder.model, values, maxRetries: 2, providerOptions: priority(urgency) })
  return embeddings.map(usableVector)
}

/** The query's vector, or null when it has nothing to embed (`?!`): semantic ranking then finds nothing. */
export async function embedQuery(embedder: Embedder, text: string): Promise<number[] | null> {
  const { embedding } = await embed({
    model: embedder.model,
    value: embedder.queryPrefix + text,
    maxRetries: 1,
    providerOptions: priority('query'),
  })
  return usableVector(embedding)
}
