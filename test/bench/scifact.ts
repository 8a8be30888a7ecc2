// BEIR SciFact (dev split) from ../shared/datasets/scifact, and the metrics: nDCG@10 and Recall@100.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

export const DATASET = join(import.meta.dir, '../../../shared/datasets/scifact')

export interface CorpusDoc {
  _id: string
  title: string
  text: string
}
export interface Query {
  _id: string
  text: string
}

const jsonl = <T>(file: string): T[] =>
  readFileSync(join(DATASET, file), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T)

export function loadScifact() {
  const corpus = jsonl<CorpusDoc>('corpus.jsonl')
  const qrels = new Map<string, Set<string>>()
  for (const line of readFileSync(join(DATASET, 'qrels/dev.tsv'), 'utf8').split('\n').slice(1).filter(Boolean)) {
    const [qid, docId, score] = line.split('\t')
    if (Number(score) <= 0) continue
    if (!qrels.has(qid!)) qrels.set(qid!, new Set())
    qrels.get(qid!)!.add(docId!)
  }
  const queries = jsonl<Query>('queries.jsonl').filter((q) => qrels.has(q._id))
  return { corpus, queries, qrels }
}

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
