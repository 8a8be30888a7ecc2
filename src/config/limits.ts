// The plans and their default limits, one row per limit (also the README's table of plans), and the reader of
// their PLAN_<PLAN>_<LIMIT> overrides.
import { type Env, readInt } from './parsers'

export const PLANS = ['free', 'pro', 'unlimited'] as const
export type Plan = (typeof PLANS)[number]

/** A limit's default on each plan (null = unlimited), and how the README names it. */
interface LimitRow extends Record<Plan, number | null> {
  label: string
  /** Shown as MiB or GiB. */
  bytes?: true
}

// The self-hoster's plan, unlimited (the default without billing), has no caps; its rates stay as pro's, to keep
// a runaway client from starving the others, and files stay bounded: one file is read whole in memory by one
// worker. No plan has a monthly cap by default (docs/decisions.md#plans).
const LIMITS = {
  api_keys: { label: 'API keys', free: 1, pro: 10, unlimited: null },
  workspaces: { label: 'workspaces', free: 2, pro: 20, unlimited: null },
  documents: { label: 'documents', free: 1_000, pro: 100_000, unlimited: null },
  storage_bytes: { label: 'storage', bytes: true, free: 100 * 1024 ** 2, pro: 10 * 1024 ** 3, unlimited: null },
  connectors: { label: 'connectors', free: 1, pro: 10, unlimited: null },
  search_per_min: { label: 'search / min', free: 60, pro: 600, unlimited: 600 },
  ask_per_min: { label: 'ask, agent, chat completions / min', free: 20, pro: 200, unlimited: 200 },
  embeddings_per_min: { label: 'embeddings / min', free: 60, pro: 600, unlimited: 600 },
  api_calls_per_month: { label: 'API calls / month', free: null, pro: null, unlimited: null },
  file_bytes: { label: 'largest uploaded file', bytes: true, free: 10 * 1024 ** 2, pro: 100 * 1024 ** 2, unlimited: 100 * 1024 ** 2 },
  file_pages: { label: 'pages read from one file', free: 100, pro: 1_000, unlimited: 2_000 },
} satisfies Record<string, LimitRow>

/** Each limit of a plan; null = unlimited (any of them can be set so, e.g. PLAN_FREE_DOCUMENTS=unlimited). */
export type PlanLimits = Record<keyof typeof LIMITS, number | null>
const LIMIT_NAMES = Object.keys(LIMITS) as (keyof PlanLimits)[]

/** Every plan's limits: the defaults above, each overridden by PLAN_<PLAN>_<LIMIT> (a number or `unlimited`). */
export function planLimits(env: Env): Record<Plan, PlanLimits> {
  const plans = {} as Record<Plan, PlanLimits>
  for (const plan of PLANS) {
    plans[plan] = {} as PlanLimits
    for (const limit of LIMIT_NAMES) {
      const name = `PLAN_${plan.toUpperCase()}_${limit.toUpperCase()}`
      const given = env[name]
      if (given === undefined || given === '') plans[plan][limit] = LIMITS[limit][plan]
      else if (given.trim() === 'unlimited') plans[plan][limit] = null
      else plans[plan][limit] = readInt(env, name, 0, 0, Number.MAX_SAFE_INTEGER)
    }
  }
  return plans
}

/** The README's table of plans: a row per limit, with its LIMIT name and each plan's default. */
export function planTable(): string[][] {
  const value = (row: LimitRow, n: number | null) => (n === null ? 'unlimited' : row.bytes ? bytes(n) : n.toLocaleString('en-US'))
  return [
    ['limit', ...PLANS],
    ...LIMIT_NAMES.map((name) => {
      const row: LimitRow = LIMITS[name]
      return [`${row.label} (\`${name.toUpperCase()}\`)`, ...PLANS.map((plan) => value(row, row[plan]))]
    }),
  ]
}

const bytes = (n: number) => (n % 1024 ** 3 === 0 ? `${n / 1024 ** 3} GiB` : `${n / 1024 ** 2} MiB`)
