// BEIR SciFact (dev split) from ../shared/datasets/scifact: corpus, queries and their relevance judgements.
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
