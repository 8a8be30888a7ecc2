// The consent page of the authorization endpoint and its error page: plain server-rendered HTML under the
// dashboard's Content-Security-Policy. Every string a client or user supplied is escaped as text.
import { CONTENT_SECURITY_POLICY } from '../../web/web.routes'
import { AUTHORIZATION_PARAMS, type AuthorizationParams, type AuthorizationRequest } from './authorize.service'
import { formActionSource } from './redirect-uris'

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!)

/**
 * The dashboard's policy, except that the form may lead to the client's redirect URI: browsers apply
 * form-action to the redirect that answers the POST, and that redirect goes to the client. The source is
 * rebuilt from the validated URI (redirect-uris.ts), never spliced in as the client wrote it.
 */
function headersFor(formTarget: string | null): Record<string, string> {
  const source = formTarget === null ? null : formActionSource(formTarget)
  const policy = source ? CONTENT_SECURITY_POLICY.replace("form-action 'self'", `form-action 'self' ${source}`) : CONTENT_SECURITY_POLICY
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': policy,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    // Not no-referrer: under it browsers send `Origin: null` with the form's POST, which the origin check refuses.
    'referrer-policy': 'same-origin',
    'cache-control': 'no-store',
  }
}

const page = (title: string, body: string) =>
  `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head>
<body>
<main>
${body}
</main>
</body>
</html>
`

export interface ConsentView {
  request: AuthorizationRequest
  params: AuthorizationParams
  email: string
  csrf: string
}

export function consentPage({ request, params, email, csrf }: ConsentView): Response {
  const name = request.client.name?.trim() || 'An unnamed application'
  const hidden = AUTHORIZATION_PARAMS.filter((n) => params[n] !== undefined)
    .map((n) => `<input type="hidden" name="${n}" value="${escapeHtml(params[n]!)}">`)
    .join('\n')
  const body = `<h1>Connect ${escapeHtml(name)} to your memory?</h1>
<p>Signed in as <strong>${escapeHtml(email)}</strong>.</p>
<p><strong>${escapeHtml(name)}</strong> asks to use this service's MCP tools as you: search and read your documents,
add documents, propose memories (as drafts that wait for your approval), and ask questions of your knowledge.
It cannot use the REST API, approve memories, or see your API keys.</p>
<p>After you answer you will be sent to <code>${escapeHtml(request.redirectUri)}</code>.
Only connect applications you set up yourself.</p>
<p>You can disconnect it at any time in the list of API keys.</p>
<form method="post" action="/oauth/authorize">
${hidden}
<input type="hidden" name="csrf_token" value="${escapeHtml(csrf)}">
<button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`
  return new Response(page(`Connect ${name}`, body), { headers: headersFor(request.redirectUri) })
}

/** An invalid authorization request (it never goes back to the client), or a refused form. */
export function errorPage(status: number, message: string): Response {
  const body = `<h1>This authorization request cannot be completed</h1>
<p>${escapeHtml(message)}</p>
<p>Start the connection again from the application.</p>`
  return new Response(page('Authorization error', body), { status, headers: headersFor(null) })
}
