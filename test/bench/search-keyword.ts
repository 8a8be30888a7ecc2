// bench:search, keyword mode: the cached index's pruned ranking (MaxScore) against the exhaustive one over the
// same copy — every query's top 10 compared document for document and score for score (the bench fails on any
// difference, so the ranking quality is unchanged by construction), and each timed alone, without HTTP or SQL.
import type { Deps } from '../../src/deps'
import { analyzeQuery, type QueryTerm } from '../../src/retrieval/keyword'
import { rankExhaustively } from '../../src/retrieval/keyword-cache-exhaustive'
import type { KeywordIndex } from '../../src/retrieval/keyword-cache'
import { searchKeywordIndex } from '../../src/retrieval/keyword-cache-rank'

type Summary = { p50: number; p95: number; p99: number; n: number }

export async function compareRankings(
  deps: Deps,
  copy: KeywordIndex,
  queries: string[],
  limit: number,
  summary: (xs: number[]) => Summary,
) {
  const analyzed: QueryTerm[][] = []
  for (const q of queries) analyzed.push(await analyzeQuery(deps.db, q))
  const pruned: number[] = []
  const exhaustive: number[] = []
  const prunedCpu: number[] = []
  let results = 0
  for (let round = 0; round < 3; round++) {
    for (const terms of analyzed) {
      let t0 = performance.now()
      const c0 = process.cpuUsage()
      const fast = searchKeywordIndex(copy, terms, {}, limit)
      pruned.push(performance.now() - t0)
      const c = process.cpuUsage(c0)
      prunedCpu.push((c.user + c.system) / 1000)
      t0 = performance.now()
      const slow = rankExhaustively(copy, terms, {}, limit)
      exhaustive.push(performance.now() - t0)
      if (JSON.stringify(fast) !== JSON.stringify(slow)) {
        throw new Error(
          `the pruned ranking differs from the exhaustive one for ${JSON.stringify(terms.map((t) => t.term))}:\n${JSON.stringify(fast)}\n${JSON.stringify(slow)}`,
        )
      }
      if (round === 0) results += fast.length
    }
  }
  const [p, e] = [summary(pruned), summary(exhaustive)]
  const ms = (s: Summary) => `p50 ${s.p50.toFixed(2)}  p95 ${s.p95.toFixed(2)}  p99 ${s.p99.toFixed(2)} ms`
  console.log(
    `ranking alone, ${queries.length} queries × 3: pruned (MaxScore) ${ms(p)} (CPU ${ms(summary(prunedCpu))}); exhaustive ${ms(e)}; ` +
      `top ${limit} identical for every query (${results} results: documents, order, scores, boosts, matched words)`,
  )
}

export const megabytes = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(1)} MB`
