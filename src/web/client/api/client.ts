// The dashboard's one way to call the API: openapi-fetch typed by schema.d.ts (generated from the service's
// own /openapi/json), with the session cookie, and every failure turned into an ApiError carrying `{ error }`.
import createClient from 'openapi-fetch'
import type { paths } from './schema'

export type { paths }

/** Same origin as the page: the session cookie goes along, and writes carry this Origin (the CSRF rule). */
export const api = createClient<paths>({ baseUrl: location.origin, credentials: 'include' })

/** What the dashboard writes is typed by a person, not saved by the extension (the API's default for cookie
 * callers): `api` is the closest of the sources the API takes. */
export const DASHBOARD = { source: 'api' as const }

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Seconds from Retry-After on a 429, else null. */
    readonly retryAfter: number | null = null,
  ) {
    super(message)
  }
}

interface Answer {
  data?: unknown
  error?: unknown
  response: Response
}

/** The success body of an openapi-fetch answer (the union member that has `data`). */
type DataOf<R> = R extends { data: infer D } ? D : never

/** The answer's data, or an ApiError with the API's own message (a network failure is status 0). */
export async function unwrap<R extends Answer>(call: Promise<R>): Promise<DataOf<R>> {
  const answer = await settle(call)
  if (!answer.response.ok) throw failure(answer)
  return answer.data as DataOf<R>
}

/** For calls answered 204 (nothing to unwrap). */
export async function done(call: Promise<Answer>): Promise<void> {
  const answer = await settle(call)
  if (!answer.response.ok) throw failure(answer)
}

async function settle<R extends Answer>(call: Promise<R>): Promise<R> {
  try {
    return await call
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error
    throw new ApiError(0, 'the service could not be reached: check your connection and try again')
  }
}

function failure({ error, response }: Answer): ApiError {
  const message =
    error && typeof error === 'object' && typeof (error as { error?: unknown }).error === 'string'
      ? (error as { error: string }).error
      : `the service answered ${response.status} ${response.statusText}`.trim()
  const seconds = Number(response.headers.get('retry-after'))
  return new ApiError(
    response.status,
    message,
    response.status === 429 ? (Number.isFinite(seconds) && seconds > 0 ? Math.ceil(seconds) : 5) : null,
  )
}
