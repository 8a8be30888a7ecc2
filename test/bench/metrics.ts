// Ranking metrics of the retrieval benchmarks: binary-relevance nDCG@k, Recall@k and their mean.

/** Binary-relevance nDCG@k. */
export function ndcgAt(ranked: string[], relevant: Set<string>, k = 10): number {
  let dcg = 0
  ranked.slice(0, k).forEach((id, i) => {
    if (relevant.has(id)) dcg += 1 / Math.log2(i + 2)
  })
  let ideal = 0
  for (let i = 0; i < Math.min(k, relevant.size); i++) ideal += 1 / Math.log2(i + 2)
  return ideal === 0 ? 0 : dcg / ideal
}

export function recallAt(ranked: string[], relevant: Set<string>, k = 100): number {
  const top = new Set(ranked.slice(0, k))
  return [...relevant].filter((id) => top.has(id)).length / relevant.size
}

export const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length)
