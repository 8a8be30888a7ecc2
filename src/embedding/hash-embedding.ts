// A deterministic, dependency-free feature-hashing embedder (words and word pairs hashed into signed
// dimensions, log-tf weighted, L2-normalised). It lets tests run the whole vector path with no model; as a
// ranking signal it is weak, so it is never a default and hybrid search gives it little weight.
import type { EmbeddingModel } from 'ai'

export type EmbeddingModelV4 = Exclude<EmbeddingModel, string>

/** FNV-1a, 32-bit. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

export function hashEmbed(text: string, dimensions: number): number[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []
  const counts = new Map<string, number>()
  const add = (feature: string) => counts.set(feature, (counts.get(feature) ?? 0) + 1)
  words.forEach((w, i) => {
    add(w)
    if (i > 0) add(`${words[i - 1]} ${w}`)
  })
  const vector = new Array<number>(dimensions).fill(0)
  for (const [feature, n] of counts) {
    const h = fnv1a(feature)
    vector[h % dimensions]! += (h & 0x80000000 ? -1 : 1) * (1 + Math.log(n))
  }
  const norm = Math.hypot(...vector) || 1
  return vector.map((v) => v / norm)
}

export function hashEmbeddingModel(dimensions: number): EmbeddingModelV4 {
  return {
    specificationVersion: 'v4',
    provider: 'service',
    modelId: `hash-${dimensions}`,
    maxEmbeddingsPerCall: 2048,
    supportsParallelCalls: true,
    async doEmbed({ values }) {
      return { embeddings: values.map((v) => hashEmbed(v, dimensions)), warnings: [] }
    },
  } as EmbeddingModelV4
}
