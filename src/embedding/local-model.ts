// The local embedding model itself: which weights file to read, how the model pools and prefixes queries, and
// the transformers.js pipeline the inference process runs. Shared by the parent (local-embedding.ts, which checks
// the files before starting a process) and the inference process (inference-host.ts, which runs the pipeline).
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { EmbeddingDtype } from '../config'

export interface LocalModelOptions {
  model: string
  /** A folder holding `<model>/{config.json,tokenizer.json,tokenizer_config.json,onnx/<weights>}`; set → never download. */
  modelPath: string | null
  /** Where downloads are cached; null → downloading is not possible (an in-memory DATA_DIR). */
  cacheDir: string | null
  /** EMBEDDING_DTYPE; null → whichever weights the folder holds (int8 first), or int8 from the hub. */
  dtype: EmbeddingDtype | null
}

/** The weights file transformers.js reads for each dtype, in the order an unset EMBEDDING_DTYPE looks for them. */
export const DTYPE_FILES: Record<EmbeddingDtype, string> = {
  q8: 'onnx/model_quantized.onnx',
  fp32: 'onnx/model.onnx',
  fp16: 'onnx/model_fp16.onnx',
}
const REQUIRED_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json']

/**
 * Which weights to load, checked before ONNX Runtime is touched so that a missing file is reported by its
 * name and folder (transformers.js would only say it could not locate "onnx/…" somewhere).
 */
export function resolveLocalDtype(model: string, modelPath: string | null, dtype: EmbeddingDtype | null): EmbeddingDtype {
  if (!modelPath) return dtype ?? 'q8'
  const folder = resolve(modelPath, model)
  const missing = (file: string) => new Error(`${file} is missing from the model folder ${folder}`)
  for (const file of REQUIRED_FILES) if (!existsSync(join(folder, file))) throw missing(file)
  if (dtype) {
    if (!existsSync(join(folder, DTYPE_FILES[dtype]))) throw missing(`${DTYPE_FILES[dtype]} (EMBEDDING_DTYPE=${dtype})`)
    return dtype
  }
  const found = (Object.keys(DTYPE_FILES) as EmbeddingDtype[]).find((d) => existsSync(join(folder, DTYPE_FILES[d])))
  if (!found) throw missing(`${DTYPE_FILES.q8} (or ${DTYPE_FILES.fp32})`)
  return found
}

/** bge models pool on [CLS] and want this instruction in front of queries (not documents). */
export function localModelTraits(model: string): { pooling: 'cls' | 'mean'; queryPrefix: string } {
  const name = model.toLowerCase()
  if (name.includes('bge-') && name.includes('-en')) {
    return { pooling: 'cls', queryPrefix: 'Represent this sentence for searching relevant passages: ' }
  }
  return { pooling: name.includes('bge-') ? 'cls' : 'mean', queryPrefix: '' }
}

/** The feature-extraction pipeline itself, for the inference process (inference-host.ts) to run. */
export async function openExtractor(options: LocalModelOptions & { threads: number | null }) {
  const dtype = resolveLocalDtype(options.model, options.modelPath, options.dtype)
  // Imported here so a process that does not embed locally never loads ONNX Runtime.
  const { pipeline, env } = await import('@huggingface/transformers')
  if (options.modelPath) {
    env.allowLocalModels = true
    env.localModelPath = resolve(options.modelPath)
    env.allowRemoteModels = false
  } else {
    env.allowLocalModels = false
    env.allowRemoteModels = true
    env.cacheDir = options.cacheDir!
  }
  const session_options = options.threads ? { intraOpNumThreads: options.threads, interOpNumThreads: 1 } : undefined
  const extract = await pipeline('feature-extraction', options.model, { dtype, ...(session_options ? { session_options } : {}) })
  const { pooling } = localModelTraits(options.model)
  return {
    dtype,
    /** One forward pass: the texts' unit vectors, flat (texts × dims). */
    async embed(values: string[]): Promise<{ data: Float32Array; dims: number }> {
      const output = await extract(values, { pooling, normalize: true })
      return { data: output.data as Float32Array, dims: output.dims.at(-1)! }
    },
  }
}
