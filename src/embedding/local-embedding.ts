// The local embedder: a transformers.js feature-extraction pipeline (ONNX Runtime on the CPU) behind the AI
// SDK's embedding-model interface, run in its own process (inference-process.ts). The model is read from EMBEDDING_MODEL_PATH, or downloaded once from the
// Hugging Face hub into DATA_DIR/models and read from there on every later start. int8 weights by default:
// 4× smaller than float32 and, for bge-small on SciFact, 0.710 nDCG@10 against fp32's published 0.713.
import { join } from 'node:path'
import type { EmbeddingDtype, InferenceOptions } from '../config'
import type { Logger } from '../log'
import type { EmbeddingModelV4 } from './hash-embedding'
import { startInference, type InferenceRunner } from './inference-process'
import { resolveLocalDtype, type LocalModelOptions } from './local-model'

/**
 * The local model behind the AI SDK's embedding interface, run off the request path (inference-process.ts).
 * Missing files are reported here, by name and folder, before any process starts; a model the pipeline cannot
 * open fails with transformers.js's own message, as it did in-process.
 */
export async function loadLocalEmbeddingModel(
  options: LocalModelOptions,
  inference: InferenceOptions,
  log?: Logger,
): Promise<{ model: EmbeddingModelV4; dtype: EmbeddingDtype; runner: InferenceRunner }> {
  if (!options.modelPath && !options.cacheDir) {
    throw new Error('DATA_DIR is in memory, so there is nowhere to download the model to; set EMBEDDING_MODEL_PATH')
  }
  const dtype = resolveLocalDtype(options.model, options.modelPath, options.dtype)
  const runner = await startInference({ ...options, dtype }, inference, log)
  return { model: runner.model, dtype, runner }
}

export function modelCacheDir(dataDir: string): string | null {
  return dataDir.startsWith('memory://') ? null : join(dataDir, 'models')
}
