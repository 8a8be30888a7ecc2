// service-embed: the embedding model chosen by config, behind the AI SDK's embed/embedMany. Vectors are
// recorded with the embedder's id, and a model that cannot be loaded leaves the service on keyword search —
// said in GET /, in search responses and in the log, never replaced silently by another model.
import { createOpenAI } from '@ai-sdk/openai'
import { embed, embedMany } from 'ai'
import type { Config } from '../config'
import type { Logger } from '../log'
import { hashEmbeddingModel, type EmbeddingModelV4 } from './hash-embedding'
import { loadLocalEmbeddingModel, localModelTraits, modelCacheDir } from './local-embedding'

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
}

export interface EmbeddingStatus {
  provider: Config['embeddings']['provider']
  model: string
  available: boolean
  reason?: string
}

export async function loadEmbedder(config: Config, log: Logger): Promise<{ embedder: Embedder | null; status: EmbeddingStatus }> {
  const { provider, model } = config.embeddings
  const unavailable = (reason: string) => {
    log.warn('embeddings unavailable: searching by keyword only', { provider, model, reason })
    return { embedder: null, status: { provider, model, available: false, reason } }
  }
  if (provider === 'none') return { embedder: null, status: { provider, model, available: false, reason: 'EMBEDDING_PROVIDER=none' } }
  if (provider === 'hash') {
    const dims = config.embeddings.dimensions
    const embedder: Embedder = { id: `hash-${dims}`, provider, model: hashEmbeddingModel(dims), queryPrefix: '', fusionWeight: 0.1, linkThreshold: 0.5 }
    return { embedder, status: { provider, model: embedder.id, available: true } }
  }
  if (provider === 'openai') {
    const openai = createOpenAI({ baseURL: config.embeddings.openaiBaseUrl ?? undefined, apiKey: config.embeddings.openaiApiKey ?? 'unset' })
    const embedder: Embedder = { id: `openai:${model}`, provider, model: openai.embedding(model) as EmbeddingModelV4, queryPrefix: '', fusionWeight: 1, linkThreshold: 0.8 }
    try {
      await embed({ model: embedder.model, value: 'ping', maxRetries: 0, abortSignal: AbortSignal.timeout(10_000) })
    } catch (error) {
      return unavailable(`the embedding endpoint did not answer: ${(error as Error).message}`)
    }
    return { embedder, status: { provider, model, available: true } }
  }
  try {
    const started = performance.now()
    const local = await loadLocalEmbeddingModel({ model, modelPath: config.embeddings.modelPath, cacheDir: modelCacheDir(config.dataDir) })
    const { queryPrefix } = localModelTraits(model)
    const embedder: Embedder = { id: `local:${model}`, provider, model: local, queryPrefix, fusionWeight: 1, linkThreshold: 0.8 }
    log.info('embedding model loaded', { model, ms: Math.round(performance.now() - started) })
    return { embedder, status: { provider, model, available: true } }
  } catch (error) {
    const where = config.embeddings.modelPath ? `from ${config.embeddings.modelPath}` : 'from the Hugging Face hub'
    return unavailable(`the model could not be loaded ${where}: ${(error as Error).message}`)
  }
}

export async function embedDocuments(embedder: Embedder, values: string[]): Promise<number[][]> {
  if (values.length === 0) return []
  const { embeddings } = await embedMany({ model: embedder.model, values, maxRetries: 2 })
  return embeddings
}

export async function embedQuery(embedder: Embedder, text: string): Promise<number[]> {
  const { embedding } = await embed({ model: embedder.model, value: embedder.queryPrefix + text, maxRetries: 1 })
  return embedding
}

