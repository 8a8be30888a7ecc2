// One `info` line per request: method, route pattern (never the raw path, which carries ids), status,
// duration until the response is handed over (a stream's headers), and the request id.
import { Elysia, StatusMap } from 'elysia'
import type { Logger } from '../log'
import { requestIdOf } from './errors'

export function accessLog(log: Logger) {
  const started = new WeakMap<Request, number>()
  return new Elysia({ name: 'access-log' })
    .onRequest(({ request }) => {
      started.set(request, performance.now())
    })
    .onAfterResponse({ as: 'global' }, ({ request, route, set, responseValue }) => {
      const start = started.get(request)
      log.info('request', {
        request_id: requestIdOf(request),
        method: request.method,
        // Empty when no route matched (a 404): the path is not logged.
        route: route || null,
        status: statusOf(responseValue, set.status),
        duration_ms: start === undefined ? null : Math.round((performance.now() - start) * 10) / 10,
      })
    })
}

function statusOf(value: unknown, status: number | keyof typeof StatusMap | undefined): number {
  if (value instanceof Response) return value.status
  if (typeof status === 'number') return status
  return status ? StatusMap[status] : 200
}
