// A local stand-in for Notion's public API (version 2022-06-28) and its OAuth endpoints on 127.0.0.1 (Bun.serve,
// port 0), in the documented wire format. OAuth: GET /v1/oauth/authorize (client_id, response_type=code,
// owner=user, redirect_uri, state; no scopes, no PKCE), POST /v1/oauth/token (HTTP Basic client auth; JSON or
// form body; authorization_code and refresh_token grants; refresh rotates the refresh token; errors
// { error, error_description }, 400 or 401 invalid_client), POST /v1/oauth/revoke (Basic, { token }). API:
// POST /v1/search, GET /v1/blocks/{id}/children, GET /v1/blocks/{id}, GET /v1/pages/{id}; every call needs
// `Authorization: Bearer` and `Notion-Version`; errors are { object: 'error', status, code, message }. Lists
// page with opaque cursors (the id of the next result) up to page_size 100. Pages, databases and blocks live in
// one tree like Notion's (a page is a child_page block of its parent); last_edited_time is minute-precise and a
// fake clock moves a minute per edit, so every edit changes it.
import { randomBytes, randomUUID } from 'node:crypto'
import type { ConnectorFake, RecordedRequest } from './connector-fake'

/** A block as Notion's append-children body takes it: `{ type: 'toggle', toggle: { rich_text, children? } }`. */
export type BlockSpec = { type: string } & Record<string, unknown>
/** A property value as Notion takes it (no `id`): `{ type: 'select', select: { name: 'Done' } }`. */
export type PropertySpec = { type: string } & Record<string, unknown>

export interface NotionFake extends ConnectorFake {
  workspace: { id: string; name: string }
  /** A page under the workspace (no parent), a page, a database (a row: properties apply) or a block; its id. */
  addPage(page: {
    title: string
    parent?: string
    blocks?: BlockSpec[]
    properties?: Record<string, PropertySpec>
    titleProperty?: string
  }): string
  addDatabase(database: { title: string; parent?: string; inline?: boolean }): string
  /** Appends blocks to a page or block (Notion's append block children); the page's last_edited_time moves. */
  appendBlocks(parentId: string, blocks: BlockSpec[]): string[]
  /** Renames and/or replaces the content or properties of a page; its last_edited_time moves. */
  editPage(id: string, change: { title?: string; blocks?: BlockSpec[]; properties?: Record<string, PropertySpec> }): void
  /** Moves a page and everything under it to the trash (archived, in_trash: true; search still returns it). */
  trashPage(id: string): void
  /** Deletes a page or database for good or unshares it: it and its descendants vanish from the API. */
  deletePage(id: string): void
}

/** Notion rich text from plain strings (one text run each). */
export function notionText(...runs: string[]): Record<string, unknown>[] {
  return runs.map((content) => ({
    type: 'text',
    text: { content, link: null },
    annotations: { bold: false, italic: false, strikethrough: false, underline: false, code: false, color: 'default' },
    plain_text: content,
    href: null,
  }))
}

/** A text block of any rich-text type: block('to_do', 'Ship it', { checked: true }). */
export function block(type: string, text: string, extra: Record<string, unknown> = {}): BlockSpec {
  return { type, [type]: { rich_text: notionText(text), color: 'default', ...extra } }
}

interface Parent {
  type: string
  [key: string]: unknown
}
interface Node {
  id: string
  kind: 'page' | 'database' | 'block'
  type: string
  data: Record<string, unknown>
  parent: Parent
  children: string[]
  properties: Record<string, Record<string, unknown>>
  title: string
  created: string
  edited: string
  trashed: boolean
  inline: boolean
}
interface Grant {
  botId: string
  refreshToken: string
  revoked: boolean
}

const CODE_TTL_MS = 10 * 60_000
function headersOf(req: Request): Record<string, string> {
  const out: Record<string, string> = {}
  req.headers.forEach((value, name) => {
    out[name] = value
  })
  return out
}
const notionError = (status: number, code: string, message: string, headers: Record<string, string> = {}) =>
  Response.json({ object: 'error', status, code, message, request_id: randomUUID() }, { status, headers })
const oauthError = (status: number, error: string, description: string) =>
  Response.json({ error, error_description: description }, { status })
const htmlPage = (status: number, text: string) =>
  new Response(`<!doctype html><title>Notion</title><p>${text}</p>`, { status, headers: { 'content-type': 'text/html' } })
const bare = (id: string) => id.toLowerCase().replaceAll('-', '')

export function startNotionFake(options: {
  callbackUrl: string
  clientId?: string
  clientSecret?: string
  workspaceName?: string
}): NotionFake {
  const { callbackUrl, clientId = randomUUID(), clientSecret = `secret_${randomBytes(20).toString('base64url')}` } = options
  const workspace = { id: randomUUID(), name: options.workspaceName ?? 'Acme HQ' }
  const userId = randomUUID()
  const requests: RecordedRequest[] = []
  const revokedTokens: string[] = []
  const nodes = new Map<string, Node>()
  const order: string[] = [] // search returns objects in creation order
  const codes = new Map<string, { redirectUri: string | null; expiresAt: number }>()
  const accessTokens = new Map<string, Grant>()
  const refreshTokens = new Map<string, Grant>()
  const expired = new Set<string>()
  let clock = Date.parse('2024-05-01T09:00:00.000Z')
  let denyNext = false
  let rateLimited = { left: 0, seconds: 1 }
  let apiFailure: number | null = null
  let gate: Promise<void> | null = null

  const tick = () => new Date((clock += 60_000)).toISOString()
  const find = (id: string) => nodes.get(bare(id))
  const need = (id: string) =>
    find(id) ??
    (() => {
      throw new Error(`fake Notion: no object ${id}`)
    })()
  const pageOf = (n: Node | undefined): Node | undefined =>
    !n || n.kind === 'page' ? n : pageOf(find(String(n.parent.page_id ?? n.parent.block_id ?? '')))
  const touch = (n: Node) => {
    const edited = tick()
    n.edited = edited
    const page = pageOf(n)
    if (page) page.edited = edited
  }

  function add(kind: Node['kind'], parentId: string | undefined, fill: Partial<Node>): Node {
    const parentNode = parentId ? need(parentId) : undefined
    const parent: Parent = !parentNode
      ? { type: 'workspace', workspace: true }
      : parentNode.kind === 'database'
        ? { type: 'database_id', database_id: parentNode.id }
        : parentNode.kind === 'page'
          ? { type: 'page_id', page_id: parentNode.id }
          : { type: 'block_id', block_id: parentNode.id }
    const at = tick()
    const node: Node = {
      id: randomUUID(),
      kind,
      type: kind === 'page' ? 'child_page' : kind === 'database' ? 'child_database' : '',
      data: {},
      parent,
      children: [],
      properties: {},
      title: '',
      created: at,
      edited: at,
      trashed: false,
      inline: false,
      ...fill,
    }
    nodes.set(bare(node.id), node)
    if (kind !== 'block') order.push(bare(node.id))
    // Database rows are not blocks of the database; everything else is a child block of its parent.
    if (parentNode && parentNode.kind !== 'database') parentNode.children.push(node.id)
    return node
  }

  function addBlocks(parentId: string, specs: BlockSpec[]): string[] {
    return specs.map((spec) => {
      const { children, ...data } = (spec[spec.type] ?? {}) as Record<string, unknown>
      const node = add('block', parentId, { type: spec.type, data })
      if (Array.isArray(children)) addBlocks(node.id, children as BlockSpec[])
      return node.id
    })
  }

  function setProperties(n: Node, title: string, specs: Record<string, PropertySpec> = {}, titleProperty = 'title') {
    n.title = title
    const titleKey = Object.entries(n.properties).find(([, p]) => p.type === 'title')?.[0] ?? titleProperty
    n.properties[titleKey] = { id: 'title', type: 'title', title: notionText(title) }
    for (const [name, spec] of Object.entries(specs))
      n.properties[name] = { id: n.properties[name]?.id ?? randomBytes(3).toString('base64url'), ...spec }
  }

  const url = (n: Node) =>
    `https://www.notion.so/${n.title.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '')}${n.title ? '-' : ''}${bare(n.id)}`
  const user = { object: 'user', id: userId }
  const common = (n: Node) => ({
    id: n.id,
    created_time: n.created,
    last_edited_time: n.edited,
    created_by: user,
    last_edited_by: user,
    parent: n.parent,
    archived: n.trashed,
    in_trash: n.trashed,
  })
  const pageJson = (n: Node) => ({
    object: 'page',
    ...common(n),
    cover: null,
    icon: null,
    properties: n.properties,
    url: url(n),
    public_url: null,
  })
  const databaseJson = (n: Node) => ({
    object: 'database',
    ...common(n),
    title: notionText(n.title),
    description: [],
    icon: null,
    cover: null,
    is_inline: n.inline,
    properties: { Name: { id: 'title', name: 'Name', type: 'title', title: {} } },
    url: url(n),
    public_url: null,
  })
  const blockJson = (n: Node) => ({
    object: 'block',
    ...common(n),
    has_children: n.children.length > 0,
    type: n.type,
    [n.type]: n.kind === 'block' ? n.data : { title: n.title },
  })
  const json = (n: Node) => (n.kind === 'page' ? pageJson(n) : n.kind === 'database' ? databaseJson(n) : blockJson(n))

  function paginateList(
    ids: string[],
    query: { start_cursor?: unknown; page_size?: unknown },
    toJson: (id: string) => unknown,
    extra: Record<string, unknown>,
  ): Response {
    const size = query.page_size === undefined ? 100 : Number(query.page_size)
    if (!Number.isInteger(size) || size < 1 || size > 100)
      return notionError(
        400,
        'validation_error',
        `body failed validation: page_size should be an integer between 1 and 100, instead was \`${String(query.page_size)}\`.`,
      )
    let start = 0
    if (query.start_cursor !== undefined && query.start_cursor !== null) {
      start = ids.findIndex((id) => bare(id) === bare(String(query.start_cursor)))
      if (start < 0) return notionError(400, 'validation_error', 'start_cursor provided is invalid: ' + String(query.start_cursor))
    }
    const slice = ids.slice(start, start + size)
    const next = ids[start + size]
    return Response.json({
      object: 'list',
      results: slice.map(toJson),
      next_cursor: next ? find(next)!.id : null,
      has_more: next !== undefined,
      ...extra,
      request_id: randomUUID(),
    })
  }

  function search(body: Record<string, unknown>): Response {
    const filter = body.filter as { property?: unknown; value?: unknown } | undefined
    if (filter !== undefined && (filter?.property !== 'object' || (filter.value !== 'page' && filter.value !== 'database'))) {
      return notionError(
        400,
        'validation_error',
        'body failed validation: body.filter.value should be `"page"` or `"database"`, and body.filter.property should be `"object"`.',
      )
    }
    const query = typeof body.query === 'string' ? body.query.toLowerCase() : ''
    const ids = order.filter((id) => {
      const n = nodes.get(id)
      return n && (!filter || n.kind === filter.value) && n.title.toLowerCase().includes(query)
    })
    return paginateList(ids, body, (id) => json(nodes.get(id)!), { type: 'page_or_database', page_or_database: {} })
  }

  function api(req: Request, url: URL, body: unknown): Response {
    if (rateLimited.left > 0) {
      rateLimited.left--
      return notionError(429, 'rate_limited', 'You have been rated limited. Please try again in a few minutes.', {
        'retry-after': String(rateLimited.seconds),
      })
    }
    if (apiFailure)
      return notionError(
        apiFailure,
        apiFailure === 503 || apiFailure === 502 ? 'service_unavailable' : 'internal_server_error',
        'Unexpected error occurred.',
      )
    const token = req.headers.get('authorization')?.match(/^Bearer\s+(\S+)$/i)?.[1]
    const grant = token ? accessTokens.get(token) : undefined
    if (!token || !grant || grant.revoked || expired.has(token)) return notionError(401, 'unauthorized', 'API token is invalid.')
    const version = req.headers.get('notion-version')
    if (!version)
      return notionError(
        400,
        'missing_version',
        'Notion-Version header failed validation: Notion-Version header should be defined, instead was `undefined`.',
      )
    if (version !== '2022-06-28')
      return notionError(400, 'validation_error', `Notion-Version header failed validation: unsupported version ${version} in this fake.`)

    if (req.method === 'POST' && url.pathname === '/v1/search') return search((body ?? {}) as Record<string, unknown>)
    const m = url.pathname.match(/^\/v1\/(blocks|pages)\/([^/]+)(\/children)?$/)
    if (!m || req.method !== 'GET' || (m[1] === 'pages' && m[3])) return notionError(400, 'invalid_request_url', 'Invalid request URL.')
    const n = find(decodeURIComponent(m[2]!))
    if (!n || (m[1] === 'pages' && n.kind !== 'page')) {
      return notionError(
        404,
        'object_not_found',
        `Could not find ${m[1] === 'pages' ? 'page' : 'block'} with ID: ${m[2]}. Make sure the relevant pages and databases are shared with your integration.`,
      )
    }
    if (m[1] === 'pages') return Response.json(pageJson(n))
    if (!m[3]) return Response.json(blockJson(n))
    const q = Object.fromEntries(url.searchParams)
    // Trashed child pages leave their parent's content, as in Notion.
    const children = n.children.filter((id) => !find(id)?.trashed)
    return paginateList(children, q, (id) => blockJson(find(id)!), { type: 'block', block: {} })
  }

  function authorize(q: Record<string, string>): Response {
    if (q.client_id !== clientId) return htmlPage(400, 'Missing or invalid client_id.')
    const redirectUri = q.redirect_uri ?? null
    if (redirectUri !== null && redirectUri !== callbackUrl) return htmlPage(400, 'Invalid redirect_uri.')
    if (q.response_type !== 'code') return htmlPage(400, 'Invalid response_type: it must be "code".')
    if (q.owner !== 'user') return htmlPage(400, 'Invalid owner: it must be "user".')
    const back = new URL(redirectUri ?? callbackUrl)
    if (denyNext) {
      denyNext = false
      back.searchParams.set('error', 'access_denied')
    } else {
      const code = randomUUID()
      codes.set(code, { redirectUri, expiresAt: Date.now() + CODE_TTL_MS })
      back.searchParams.set('code', code)
    }
    if (q.state !== undefined) back.searchParams.set('state', q.state)
    return new Response(null, { status: 302, headers: { location: back.toString() } })
  }

  const clientOk = (req: Request) => {
    const basic = req.headers.get('authorization')?.match(/^Basic\s+(\S+)$/i)?.[1]
    return basic !== undefined && Buffer.from(basic, 'base64').toString('utf8') === `${clientId}:${clientSecret}`
  }

  function issue(grant: Grant): Response {
    const accessToken = `ntn_${randomBytes(24).toString('base64url')}`
    grant.refreshToken = `nrt_${randomBytes(24).toString('base64url')}`
    accessTokens.set(accessToken, grant)
    refreshTokens.set(grant.refreshToken, grant)
    return Response.json({
      access_token: accessToken,
      token_type: 'bearer',
      refresh_token: grant.refreshToken,
      bot_id: grant.botId,
      workspace_id: workspace.id,
      workspace_name: workspace.name,
      workspace_icon: 'https://www.notion.so/images/page-cover/gradients_1.png',
      owner: {
        type: 'user',
        user: { object: 'user', id: userId, name: 'Ada Lovelace', avatar_url: null, type: 'person', person: { email: 'ada@example.com' } },
      },
      duplicated_template_id: null,
      request_id: randomUUID(),
    })
  }

  function token(req: Request, body: Record<string, unknown>): Response {
    if (!clientOk(req))
      return oauthError(401, 'invalid_client', 'Client authentication failed: use HTTP Basic with the client id and secret.')
    if (body.grant_type === 'authorization_code') {
      if (typeof body.code !== 'string') return oauthError(400, 'invalid_request', 'body.code should be defined.')
      const code = codes.get(body.code)
      codes.delete(body.code) // single use, whatever happens next
      if (!code || code.expiresAt < Date.now()) return oauthError(400, 'invalid_grant', 'Invalid code.')
      if ((body.redirect_uri ?? null) !== code.redirectUri)
        return oauthError(400, 'invalid_grant', 'Invalid redirect_uri: it must match the authorization request.')
      return issue({ botId: randomUUID(), refreshToken: '', revoked: false })
    }
    if (body.grant_type === 'refresh_token') {
      const grant = typeof body.refresh_token === 'string' ? refreshTokens.get(body.refresh_token) : undefined
      if (!grant || grant.revoked) return oauthError(400, 'invalid_grant', 'Token has been expired or revoked.')
      refreshTokens.delete(body.refresh_token as string) // rotated: the old refresh token is spent
      return issue(grant)
    }
    return oauthError(
      400,
      body.grant_type === undefined ? 'invalid_request' : 'unsupported_grant_type',
      `Unsupported grant_type: ${String(body.grant_type)}`,
    )
  }

  function revoke(req: Request, body: Record<string, unknown>): Response {
    if (!clientOk(req))
      return oauthError(401, 'invalid_client', 'Client authentication failed: use HTTP Basic with the client id and secret.')
    if (typeof body.token !== 'string')
      return notionError(400, 'validation_error', 'body failed validation: body.token should be defined, instead was `undefined`.')
    const grant = accessTokens.get(body.token) ?? refreshTokens.get(body.token)
    // Revoking ends the whole grant: its access and refresh tokens stop working.
    if (grant && !grant.revoked) {
      grant.revoked = true
      revokedTokens.push(body.token)
    }
    return Response.json({ request_id: randomUUID() })
  }

  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const url = new URL(req.url)
      const text = await req.text()
      const type = req.headers.get('content-type') ?? ''
      let body: unknown = text === '' ? undefined : text
      if (type.startsWith('application/x-www-form-urlencoded')) body = Object.fromEntries(new URLSearchParams(text))
      else if (type.startsWith('application/json') && text) {
        try {
          body = JSON.parse(text)
        } catch {
          return notionError(400, 'invalid_json', 'Error parsing JSON body.')
        }
      }
      const query = Object.fromEntries(url.searchParams)
      requests.push({ method: req.method, path: url.pathname, query, headers: headersOf(req), body })
      const fields = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>

      if (url.pathname === '/v1/oauth/authorize' && req.method === 'GET') return authorize(query)
      if (url.pathname === '/v1/oauth/token' && req.method === 'POST') return token(req, fields)
      if (url.pathname === '/v1/oauth/revoke' && req.method === 'POST') return revoke(req, fields)
      if (gate) await gate
      return api(req, url, body)
    },
  })

  const baseUrl = `http://127.0.0.1:${server.port}`
  return {
    baseUrl,
    clientId,
    clientSecret,
    workspace,
    env: {
      NOTION_CLIENT_ID: clientId,
      NOTION_CLIENT_SECRET: clientSecret,
      NOTION_AUTH_URL: `${baseUrl}/v1/oauth/authorize`,
      NOTION_TOKEN_URL: `${baseUrl}/v1/oauth/token`,
      NOTION_API_URL: baseUrl,
      NOTION_REVOKE_URL: `${baseUrl}/v1/oauth/revoke`,
    },
    requests,
    revokedTokens,
    expireAccessTokens: () => {
      for (const t of accessTokens.keys()) expired.add(t)
    },
    rateLimitNext: (n, seconds = 1) => {
      rateLimited = { left: n, seconds }
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
    addPage({ title, parent, blocks = [], properties, titleProperty }) {
      const node = add('page', parent, {})
      setProperties(node, title, properties, parent && need(parent).kind === 'database' ? (titleProperty ?? 'Name') : 'title')
      addBlocks(node.id, blocks)
      return node.id
    },
    addDatabase({ title, parent, inline = false }) {
      return add('database', parent, { title, inline }).id
    },
    appendBlocks(parentId, blocks) {
      const ids = addBlocks(parentId, blocks)
      touch(need(parentId))
      return ids
    },
    editPage(id, change) {
      const n = need(id)
      if (change.title !== undefined || change.properties) setProperties(n, change.title ?? n.title, change.properties)
      if (change.blocks) {
        for (const child of n.children.filter((c) => find(c)?.kind === 'block')) nodes.delete(bare(child))
        n.children = n.children.filter((c) => find(c))
        addBlocks(n.id, change.blocks)
      }
      touch(n)
    },
    trashPage(id) {
      const mark = (n: Node) => {
        n.trashed = true
        for (const c of n.children) mark(need(c))
        for (const row of nodes.values()) if (row.parent.database_id === n.id) mark(row)
      }
      mark(need(id))
      touch(need(id))
    },
    deletePage(id) {
      const drop = (n: Node) => {
        nodes.delete(bare(n.id))
        for (const c of n.children) if (find(c)) drop(find(c)!)
        for (const row of [...nodes.values()]) if (row.parent.database_id === n.id) drop(row)
      }
      drop(need(id))
      order.splice(0, order.length, ...order.filter((o) => nodes.has(o)))
      for (const n of nodes.values()) n.children = n.children.filter((c) => find(c))
    },
    stop: () => server.stop(true),
  }
}
