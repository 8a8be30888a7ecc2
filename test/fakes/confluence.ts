// A local stand-in for Atlassian's OAuth 2.0 (3LO) and Confluence Cloud REST v2 on 127.0.0.1 (Bun.serve,
// port 0), in their documented wire formats. OAuth: GET /authorize (audience=api.atlassian.com, client_id,
// scope, redirect_uri, response_type=code; bad requests get an error page, a refusal goes back as
// error=access_denied), POST /oauth/token (form or JSON, client_id + client_secret in the BODY, codes single
// use and bound to client and redirect_uri, refresh tokens only with offline_access and rotated on every
// use; errors { error, error_description }). No revoke endpoint: 3LO has none. API (Bearer): GET
// /oauth/token/accessible-resources and /ex/confluence/{cloudId}/wiki/api/v2/{spaces, spaces/{id}/pages,
// pages/{id}} with cursor pagination (`_links.next` relative to the site, plus a Link header), granular
// scopes checked per endpoint, gateway 401s as { code, message }, v2 errors as { errors: [...] }.
import { randomBytes } from 'node:crypto'
import type { ConnectorFake, RecordedRequest } from './connector-fake'

export interface ConfluenceFake extends ConnectorFake {
  /** The one site every grant reaches. */
  site: { cloudId: string; url: string; name: string }
  /** Content scripting: spaces and pages as the REST API shows them. */
  addSpace(input: { key: string; name?: string; type?: 'global' | 'personal' }): FakeSpace
  addPage(spaceKey: string, input: { title: string; body?: string; parentId?: string; status?: 'current' | 'archived' }): FakePage
  /** A new version of the page (version.number + 1, new createdAt), as an edit in the editor makes. */
  editPage(id: string, changes: { title?: string; body?: string }): FakePage
  /** Moves the page to the trash: it leaves the listings and GET /pages/{id} answers 404. */
  removePage(id: string): void
  /** Archives the page: it leaves status=current listings but is still readable. */
  archivePage(id: string): void
  apiRequests(): RecordedRequest[]
  tokenRequests(): RecordedRequest[]
}

export interface ConfluenceFakeOptions {
  /** The app's registered callback URL; authorize and token requests must name it. */
  callbackUrl: string
  clientId?: string
  clientSecret?: string
  /** The largest `limit` the listings honour (REST v2: 250); lower it to get many pages from few items. */
  maxLimit?: number
  site?: { cloudId?: string; url?: string; name?: string }
}

const CODE_TTL_MS = 10 * 60_000

export function startConfluenceFake(options: ConfluenceFakeOptions): ConfluenceFake {
  const { callbackUrl, clientId = 'confluence-client-id', clientSecret = 'confluence-client-secret' } = options
  const site = {
    cloudId: options.site?.cloudId ?? '11223344-a1b2-4c3d-8e9f-556677889900',
    url: options.site?.url ?? 'https://acme.atlassian.net',
    name: options.site?.name ?? 'acme',
  }
  const requests: RecordedRequest[] = []
  const codes = new Map<string, { redirectUri: string; scopes: string[]; expiresAt: number }>()
  const accessTokens = new Map<string, { scopes: string[]; live: boolean }>()
  const refreshTokens = new Map<string, { scopes: string[] }>()
  let denyNext = false
  let apiFailure: number | null = null
  let rateLimit = { remaining: 0, seconds: 1 }
  let gate: Promise<void> | null = null
  const api = createSite(site, options.maxLimit ?? 250)

  const page = (status: number, text: string) =>
    new Response(`<!doctype html><title>Atlassian</title><h1>Something went wrong</h1><p>${text}</p>`, {
      status,
      headers: { 'content-type': 'text/html' },
    })
  const oauthError = (status: number, error: string, description: string) =>
    Response.json({ error, error_description: description }, { status })

  function authorize(q: Record<string, string>): Response {
    if (q.client_id !== clientId) return page(400, 'Invalid client_id: the app could not be found.')
    if (q.audience !== 'api.atlassian.com') return page(400, 'Invalid audience: it must be api.atlassian.com.')
    if (!q.redirect_uri || q.redirect_uri !== callbackUrl) return page(400, 'The redirect_uri does not match a callback URL of the app.')
    if (q.response_type !== 'code') return page(400, `Unsupported response_type: ${q.response_type ?? '(missing)'}`)
    if (!q.scope) return page(400, 'Missing scope.')
    const back = new URL(q.redirect_uri)
    if (denyNext) {
      denyNext = false
      back.searchParams.set('error', 'access_denied')
      back.searchParams.set('error_description', 'The user declined the consent.')
    } else {
      const code = randomBytes(16).toString('base64url')
      codes.set(code, { redirectUri: q.redirect_uri, scopes: q.scope.split(/\s+/).filter(Boolean), expiresAt: Date.now() + CODE_TTL_MS })
      back.searchParams.set('code', code)
    }
    if (q.state !== undefined) back.searchParams.set('state', q.state)
    return new Response(null, { status: 302, headers: { location: back.toString() } })
  }

  function issue(scopes: string[]): Response {
    const accessToken = `eyJ${randomBytes(24).toString('base64url')}`
    accessTokens.set(accessToken, { scopes, live: true })
    const refreshToken = scopes.includes('offline_access') ? randomBytes(24).toString('base64url') : undefined
    if (refreshToken) refreshTokens.set(refreshToken, { scopes })
    return Response.json({
      access_token: accessToken,
      expires_in: 3600,
      token_type: 'Bearer',
      ...(refreshToken ? { refresh_token: refreshToken } : {}),
      scope: scopes.join(' '),
    })
  }

  function token(form: Record<string, string> | null): Response {
    if (!form) return oauthError(400, 'invalid_request', 'The body must be application/x-www-form-urlencoded or application/json.')
    // 3LO takes the client's credentials in the body only (client_secret_post).
    if (!form.client_id || form.client_secret === undefined)
      return oauthError(401, 'unauthorized_client', 'client_id and client_secret are required in the request body.')
    if (form.client_id !== clientId || form.client_secret !== clientSecret) return oauthError(401, 'access_denied', 'Unauthorized')
    if (form.grant_type === 'authorization_code') {
      const grant = form.code ? codes.get(form.code) : undefined
      if (form.code) codes.delete(form.code) // single use, whatever happens next
      if (!grant || grant.expiresAt < Date.now()) return oauthError(403, 'invalid_grant', 'Invalid authorization code')
      if (form.redirect_uri !== grant.redirectUri)
        return oauthError(403, 'invalid_grant', 'redirect_uri does not match the authorization request')
      return issue(grant.scopes)
    }
    if (form.grant_type === 'refresh_token') {
      const grant = form.refresh_token ? refreshTokens.get(form.refresh_token) : undefined
      if (!grant) return oauthError(403, 'invalid_grant', 'Unknown or invalid refresh token.')
      refreshTokens.delete(form.refresh_token!) // rotating refresh tokens: the old one is spent
      return issue(grant.scopes)
    }
    return oauthError(400, 'unsupported_grant_type', `Unsupported grant type: ${form.grant_type ?? '(missing)'}`)
  }

  async function guardedApi(req: Request, url: URL): Promise<Response> {
    if (gate) await gate
    if (rateLimit.remaining > 0) {
      rateLimit.remaining--
      return Response.json(
        { code: 429, message: 'Too Many Requests' },
        { status: 429, headers: { 'retry-after': String(rateLimit.seconds) } },
      )
    }
    if (apiFailure)
      return Response.json(
        { errors: [{ status: apiFailure, code: 'SERVICE_UNAVAILABLE', title: 'Service Unavailable', detail: null }] },
        { status: apiFailure },
      )
    const bearer = req.headers.get('authorization')?.match(/^Bearer\s+(\S+)$/i)?.[1]
    const grant = bearer ? accessTokens.get(bearer) : undefined
    if (!grant?.live) return Response.json({ code: 401, message: 'Unauthorized' }, { status: 401 })
    if (url.pathname === '/oauth/token/accessible-resources') {
      const scopes = grant.scopes.filter((s) => s !== 'offline_access')
      return Response.json([
        {
          id: site.cloudId,
          url: site.url,
          name: site.name,
          scopes,
          avatarUrl: 'https://site-admin-avatar-cdn.prod.public.atl-paas.net/avatars/240/rocket.png',
        },
      ])
    }
    return api.handle(url, grant.scopes)
  }

  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const url = new URL(req.url)
      const text = await req.text()
      const type = req.headers.get('content-type') ?? ''
      let body: unknown = text
      if (type.startsWith('application/x-www-form-urlencoded')) body = Object.fromEntries(new URLSearchParams(text))
      else if (type.startsWith('application/json'))
        body = (() => {
          try {
            return JSON.parse(text)
          } catch {
            return text
          }
        })()
      const headers: Record<string, string> = {}
      req.headers.forEach((v, k) => {
        headers[k] = v
      })
      const query = Object.fromEntries(url.searchParams)
      requests.push({ method: req.method, path: url.pathname, query, headers, body })

      if (url.pathname === '/authorize' && req.method === 'GET') return authorize(query)
      if (url.pathname === '/oauth/token') {
        if (req.method !== 'POST') return page(405, 'Method Not Allowed')
        return token(typeof body === 'object' && body !== null ? stringsOf(body as Record<string, unknown>) : null)
      }
      if (req.method === 'GET' && (url.pathname === '/oauth/token/accessible-resources' || url.pathname.startsWith('/ex/confluence/')))
        return guardedApi(req, url)
      return Response.json({ code: 404, message: 'Not Found' }, { status: 404 })
    },
  })

  const baseUrl = `http://127.0.0.1:${server.port}`
  const isApi = (r: RecordedRequest) => r.path === '/oauth/token/accessible-resources' || r.path.startsWith('/ex/')
  return {
    baseUrl,
    clientId,
    clientSecret,
    env: {
      CONFLUENCE_CLIENT_ID: clientId,
      CONFLUENCE_CLIENT_SECRET: clientSecret,
      CONFLUENCE_AUTH_URL: `${baseUrl}/authorize`,
      CONFLUENCE_TOKEN_URL: `${baseUrl}/oauth/token`,
      CONFLUENCE_API_URL: baseUrl,
    },
    requests,
    site,
    expireAccessTokens: () => {
      for (const grant of accessTokens.values()) grant.live = false
    },
    revokedTokens: [],
    rateLimitNext: (n, retryAfterSeconds = 1) => {
      rateLimit = { remaining: n, seconds: retryAfterSeconds }
    },
    failApi: (status) => {
      apiFailure = status
    },
    denyNextConsent: () => {
      denyNext = true
    },
    gateApi: (g) => {
      gate = g
    },
    addSpace: api.addSpace,
    addPage: api.addPage,
    editPage: api.editPage,
    removePage: api.removePage,
    archivePage: api.archivePage,
    apiRequests: () => requests.filter(isApi),
    tokenRequests: () => requests.filter((r) => r.path === '/oauth/token'),
    stop: () => server.stop(true),
  }
}

function stringsOf(body: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(body)) if (v !== undefined && v !== null) out[k] = String(v)
  return out
}

export interface FakeSpace {
  id: string
  key: string
  name: string
  type: 'global' | 'personal'
  status: 'current' | 'archived'
  createdAt: string
}

export interface FakePage {
  id: string
  spaceId: string
  title: string
  status: 'current' | 'archived' | 'trashed'
  parentId: string | null
  createdAt: string
  version: { number: number; createdAt: string }
  /** The storage-format (XHTML) body. */
  body: string
}

const REAL_MAX_LIMIT = 250
const PAGE_STATUSES = ['current', 'archived', 'deleted', 'trashed']
const BODY_FORMATS = ['storage', 'atlas_doc_format', 'view', 'export_view', 'anonymous_export_view', 'styled_view', 'editor']
const v2Error = (status: number, code: string, title: string) =>
  Response.json({ errors: [{ status, code, title, detail: null }] }, { status })
const byId = (a: { id: string }, b: { id: string }) => Number(a.id) - Number(b.id)
/** Comma-separated (form, explode=false) or repeated array parameters, as v2 accepts both. */
const listParam = (url: URL, name: string) =>
  url.searchParams
    .getAll(name)
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean)

/** The site's spaces and pages and the v2 endpoints that read them; ids grow like Confluence's numeric ids. */
function createSite(site: { cloudId: string; url: string }, maxLimit: number) {
  const spaces: FakeSpace[] = []
  const pages: FakePage[] = []
  let nextPageId = 65_537
  let nextSpaceId = 98_305
  let clock = 0
  /** Strictly increasing, even for two edits within one millisecond. */
  const now = () => new Date((clock = Math.max(clock + 1, Date.now()))).toISOString()
  const pageOf = (id: string) => pages.find((p) => p.id === id) ?? raise(`no page ${id}`)
  const webui = (p: FakePage) =>
    `/spaces/${spaces.find((s) => s.id === p.spaceId)!.key}/pages/${p.id}/${encodeURIComponent(p.title).replace(/%20/g, '+')}`

  function view(p: FakePage, format: string | null) {
    const body = format ? { [format]: { value: format === 'storage' ? p.body : `<rendered ${format}>`, representation: format } } : {}
    return {
      id: p.id,
      status: p.status,
      title: p.title,
      spaceId: p.spaceId,
      parentId: p.parentId,
      parentType: p.parentId ? 'page' : null,
      position: Number(p.id) % 1000,
      authorId: '5b10ac8d82e05b22cc7d4ef5',
      ownerId: '5b10ac8d82e05b22cc7d4ef5',
      createdAt: p.createdAt,
      version: {
        createdAt: p.version.createdAt,
        message: '',
        number: p.version.number,
        minorEdit: false,
        authorId: '5b10ac8d82e05b22cc7d4ef5',
      },
      body,
      _links: {
        webui: webui(p),
        editui: `/pages/resumedraft.action?draftId=${p.id}`,
        tinyui: `/x/${Buffer.from(p.id).toString('base64url')}`,
      },
    }
  }

  /** One page of a cursor listing; the cursor is opaque to clients and carries the last id served. */
  function listing<T extends { id: string }>(url: URL, all: T[], render: (item: T) => unknown): Response {
    const limitParam = url.searchParams.get('limit')
    const limit = limitParam === null ? 25 : Number(limitParam)
    if (!Number.isInteger(limit) || limit < 1 || limit > REAL_MAX_LIMIT)
      return v2Error(
        400,
        'INVALID_REQUEST_PARAMETER',
        `Provided value {${limitParam}} for 'limit' is not valid: it must be between 1 and ${REAL_MAX_LIMIT}`,
      )
    let after = 0
    const cursor = url.searchParams.get('cursor')
    if (cursor) {
      try {
        after = Number(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')).after)
      } catch {}
      if (!after) return v2Error(400, 'INVALID_REQUEST_PARAMETER', 'Invalid cursor')
    }
    const rest = all.filter((item) => Number(item.id) > after)
    const results = rest.slice(0, Math.min(limit, maxLimit))
    const links: Record<string, string> = { base: `${site.url}/wiki` }
    const headers: Record<string, string> = {}
    if (rest.length > results.length) {
      const next = new URLSearchParams(url.searchParams)
      next.set('cursor', Buffer.from(JSON.stringify({ after: Number(results.at(-1)!.id) })).toString('base64url'))
      links.next = `${url.pathname.replace(/^\/ex\/confluence\/[^/]+/, '')}?${next}`
      headers.link = `<${links.next}>; rel="next", <${links.base}>; rel="base"`
    }
    return Response.json({ results: results.map(render), _links: links }, { headers })
  }

  function handle(url: URL, scopes: string[]): Response {
    const m = url.pathname.match(/^\/ex\/confluence\/([^/]+)\/wiki\/api\/v2(\/.*)$/)
    if (!m) return Response.json({ code: 404, message: 'Not Found' }, { status: 404 })
    if (decodeURIComponent(m[1]!) !== site.cloudId) return Response.json({ code: 404, message: `Site ${m[1]} not found` }, { status: 404 })
    const path = m[2]!
    const needs = (scope: string) =>
      scopes.includes(scope) ? null : Response.json({ code: 401, message: 'Unauthorized; scope does not match' }, { status: 401 })
    const format = url.searchParams.get('body-format')
    if (format !== null && !BODY_FORMATS.includes(format))
      return v2Error(400, 'INVALID_REQUEST_PARAMETER', `Invalid body-format: ${format}`)

    if (path === '/spaces') {
      const keys = listParam(url, 'keys')
      const chosen = spaces.filter((s) => !keys.length || keys.includes(s.key)).sort(byId)
      return (
        needs('read:space:confluence') ??
        listing(url, chosen, ({ createdAt, ...s }) => ({
          ...s,
          createdAt,
          authorId: '5b10ac8d82e05b22cc7d4ef5',
          homepageId: null,
          _links: { webui: `/spaces/${s.key}` },
        }))
      )
    }
    let p = path.match(/^\/spaces\/([^/]+)\/pages$/)
    if (p) {
      const denied = needs('read:page:confluence')
      if (denied) return denied
      const space = spaces.find((s) => s.id === p![1])
      if (!space) return v2Error(404, 'NOT_FOUND', 'Not Found')
      const statuses = listParam(url, 'status')
      if (statuses.some((s) => !PAGE_STATUSES.includes(s)))
        return v2Error(400, 'INVALID_REQUEST_PARAMETER', `Invalid status: ${statuses.join(',')}`)
      // Without a status filter v2 answers current and archived pages.
      const wanted = statuses.length ? statuses : ['current', 'archived']
      const chosen = pages
        .filter((pg) => pg.spaceId === space.id && wanted.includes(pg.status) && (url.searchParams.get('depth') !== 'root' || !pg.parentId))
        .sort(byId)
      return listing(url, chosen, (pg) => view(pg, format))
    }
    p = path.match(/^\/pages\/([^/]+)$/)
    if (p) {
      const denied = needs('read:page:confluence')
      if (denied) return denied
      const page = pages.find((pg) => pg.id === p![1] && pg.status !== 'trashed')
      if (!page) return v2Error(404, 'NOT_FOUND', 'Not Found')
      return Response.json({ ...view(page, format), _links: { ...view(page, null)._links, base: `${site.url}/wiki` } })
    }
    return v2Error(404, 'NOT_FOUND', 'Not Found')
  }

  return {
    handle,
    addSpace({ key, name, type = 'global' }: { key: string; name?: string; type?: 'global' | 'personal' }): FakeSpace {
      const space: FakeSpace = { id: String(nextSpaceId++), key, name: name ?? key, type, status: 'current', createdAt: now() }
      spaces.push(space)
      return space
    },
    addPage(spaceKey: string, input: { title: string; body?: string; parentId?: string; status?: 'current' | 'archived' }): FakePage {
      const space = spaces.find((s) => s.key === spaceKey) ?? raise(`no space ${spaceKey}`)
      const createdAt = now()
      const page: FakePage = {
        id: String(nextPageId++),
        spaceId: space.id,
        title: input.title,
        status: input.status ?? 'current',
        parentId: input.parentId ?? null,
        createdAt,
        version: { number: 1, createdAt },
        body: input.body ?? `<p>${input.title}</p>`,
      }
      pages.push(page)
      return page
    },
    editPage(id: string, changes: { title?: string; body?: string }): FakePage {
      const page = pageOf(id)
      Object.assign(page, {
        title: changes.title ?? page.title,
        body: changes.body ?? page.body,
        version: { number: page.version.number + 1, createdAt: now() },
      })
      return page
    },
    removePage(id: string) {
      pageOf(id).status = 'trashed'
    },
    archivePage(id: string) {
      pageOf(id).status = 'archived'
    },
  }
}

function raise(message: string): never {
  throw new Error(`confluence fake: ${message}`)
}
