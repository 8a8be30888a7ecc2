// The in-process embedder: a transformers.js feature-extraction pipeline (ONNX Runtime on the CPU) behind the
// AI SDK's embedding-model interface. The model is read from EMBEDDING_MODEL_PATH, or downloaded once from the
// Hugging Face hub into DATA_DIR/models and read from there on every later start.
import { join } from 'node:path'
import type { EmbeddingModelV4 } from './hash-embedding'

export interface LocalModelOptions {
  model: string
  /** A folder holding `<model>/{config.json,tokenizer.json,onnx/model.onnx}`; set → never download. */
  modelPath: string | null
  /** Where downloads are cached; null → downloading is not possible (an in-memory DATA_DIR). */
  cacheDir: string | null
}

/** bge models pool on [CLS] and want this instruction in front of queries (not documents). */
export function localModelTraits(model: string): { pooling: 'cls' | 'mean'; queryPrefix: string } {
  const name = model.toLowerCase()
  if (name.includes('bge-') && name.includes('-en')) {
    return { pooling: 'cls', queryPrefix: 'Represent this sentence for searching relevant passages: ' }
  }
  return { pooling: name.includes('bge-') ? 'cls' : 'mean', queryPrefix: '' }
}

// Texts per forward pass: enough to keep ONNX Runtime busy, small enough that a batch of 1,200-character
// chunks stays well under a few hundred MB of activations.
const BATCH = 16

export async function loadLocalEmbeddingModel(options: LocalModelOptions): Promise<EmbeddingModelV4> {
  if (!options.modelPath && !options.cacheDir) {
    throw new Error('DATA_DIR is in memory, so there is nowhere to download the model to; set EMBEDDING_MODEL_PATH')
  }
  // Imported here so a service that does not embed locally never loads ONNX Runtime.
  const { pipeline, env } = await import('@huggingface/transformers')
  if (options.modelPath) {
    env.allowLocalModels = true
    env.localModelPath = options.modelPath
    env.allowRemoteModels = false
  } else {
    env.allowLocalModels = false
    env.allowRemoteModels = true
    env.cacheDir = options.cacheDir!
  }
  const extract = await pipeline('feature-extraction', options.model, { dtype: 'fp32' })
  const { pooling } = localModelTraits(options.model)

  // One forward pass at a time: ONNX Runtime already uses every core, so overlapping calls only queue.
  let queue: Promise<unknown> = Promise.resolve()
  const run = <T>(task: () => Promise<T>): Promise<T> => {
    const next = queue.then(task, task)
    queue = next.catch(() => undefined)
    return next
  }

  return {
    specificationVersion: 'v4',
    provider: 'transformers.js',
    modelId: options.model,
    maxEmbeddingsPerCall: BATCH,
    supportsParallelCalls: false,
    async doEmbed({ values, abortSignal }) {
      abortSignal?.throwIfAborted()
      const output = await run(() => extract(values, { pooling, normalize: true }))
      return { embeddings: output.tolist() as number[][], warnings: [] }
    },
  } as EmbeddingModelV4
}

export function modelCacheDir(dataDir: string): string | null {
  return dataDir.startsWith('memory://') ? null : join(dataDir, 'models')
}
