// Where a browser may be sent after an OAuth return: this service, or a page on an allowed origin — never
// elsewhere (an open redirect would hand the flow to anyone).
import type { Deps } from '../deps'
import { badRequest } from '../http/errors'

export function landingUrl(deps: Deps, redirectTo: string | undefined): string {
  if (!redirectTo) return `${deps.config.baseUrl}/`
  try {
    const origin = new URL(redirectTo).origin
    if (origin === new URL(deps.config.baseUrl).origin || deps.config.allowedOrigins.includes(origin)) return redirectTo
  } catch {}
  throw badRequest('redirect_to must be on this service or an allowed origin')
}
