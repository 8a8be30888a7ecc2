// Confluence Cloud connector: Atlassian OAuth 2.0 (3LO), the site from accessible-resources, pages of the
// selected spaces through REST v2 on the API gateway ({api}/ex/confluence/{cloudId}/wiki/api/v2/...).
import type { ConnectionAccount, ConnectorProvider, RemoteItem, WikiSpace } from '../provider'
import { ProviderError, SkipItem, type ProviderApi } from '../provider-api'
import { storageToText } from './confluence-storage'

/** The largest page size REST v2 allows; fewer round trips for big spaces. */
const LIMIT = 250

interface AccessibleResource {
  id: string
  url: string
  name: string
  scopes?: string[]
}

interface Space {
  id: string
  key: string
  name: string
}

interface PageSummary {
  id: string
  title: string
  status: string
  version?: { number?: number }
  _links?: { webui?: string }
}

interface PageWithBody extends PageSummary {
  body?: { storage?: { value?: unknown; representation?: string } }
}

interface MultiEntity<T> {
  results: T[]
  _links?: { next?: string }
}

interface Site {
  cloudId: string
  siteUrl: string
}

export const confluenceProvider: ConnectorProvider = {
  type: 'confluence',
  oauth: 'confluence',
  // REST v2 only accepts the granular scopes; offline_access is what yields a refresh token.
  scopes: ['read:space:confluence', 'read:page:confluence', 'offline_access'],
  authorizeParams: { audience: 'api.atlassian.com', prompt: 'consent' },
  selectionKey: 'spaces',

  async identify(api) {
    const resources = await api.json<AccessibleResource[]>('/oauth/token/accessible-resources')
    if (!Array.isArray(resources) || resources.length === 0)
      throw new ProviderError(403, 'confluence: the grant gives access to no Atlassian site')
    // A grant can span Jira and Confluence sites; prefer one the Confluence scopes were granted on.
    const site = resources.find((r) => r.scopes?.some((s) => s.endsWith(':confluence') || s.includes('confluence-'))) ?? resources[0]!
    return { externalAccountId: site.id, accountName: site.name, meta: { cloudId: site.id, siteUrl: site.url.replace(/\/+$/, '') } }
  },

  async *list(ctx) {
    const site = siteOf(ctx.account)
    const keys = ctx.config.spaces?.filter(Boolean) ?? []
    // Fetch the spaces first: a selection that names no visible space lists nothing, and its pages go.
    const spaces = await listSpaces(ctx.api, site, keys)
    for (const space of spaces) {
      const pages = paginate<PageSummary>(ctx.api, site, `/spaces/${encodeURIComponent(space.id)}/pages`, {
        limit: LIMIT,
        status: 'current',
      })
      for await (const page of pages) yield itemOf(site, space, page)
    }
  },

  async content(ctx, item) {
    const site = siteOf(ctx.account)
    let page: PageWithBody
    try {
      page = await ctx.api.json<PageWithBody>(`${gateway(site)}/wiki/api/v2/pages/${encodeURIComponent(item.externalId)}`, {
        query: { 'body-format': 'storage' },
        maxBytes: ctx.maxBodyBytes,
      })
    } catch (error) {
      // Deleted or its restrictions tightened since the listing: the next listing settles it.
      if (error instanceof ProviderError && error.status === 404) throw new SkipItem('the page no longer exists')
      throw error
    }
    const storage = page.body?.storage?.value
    if (typeof storage !== 'string') throw new ProviderError(null, `confluence: page ${item.externalId} came without its storage body`)
    const text = storageToText(storage)
    if (!text) throw new SkipItem('the page has no text (only images, attachments or macros)')
    return text
  },

  async spaces(ctx) {
    return listSpaces(ctx.api, siteOf(ctx.account), [])
  },
}

function siteOf(account: ConnectionAccount): Site {
  const { cloudId, siteUrl } = account.meta
  if (typeof cloudId !== 'string' || !cloudId || typeof siteUrl !== 'string')
    throw new ProviderError(null, 'confluence: the connection has no site (cloud id): reconnect')
  return { cloudId, siteUrl }
}

/** Where a site's REST API sits on the gateway; next links (relative to the site) are appended to it. */
const gateway = (site: Site) => `/ex/confluence/${encodeURIComponent(site.cloudId)}`

async function listSpaces(api: ProviderApi, site: Site, keys: string[]): Promise<WikiSpace[]> {
  const out: WikiSpace[] = []
  const query = { limit: LIMIT, ...(keys.length ? { keys: keys.join(',') } : {}) }
  for await (const space of paginate<Space>(api, site, '/spaces', query))
    out.push({ id: String(space.id), key: space.key, name: space.name })
  return out
}

/** Every result of a cursor-paginated v2 listing, following `_links.next` to the end. */
async function* paginate<T>(api: ProviderApi, site: Site, path: string, query: Record<string, string | number>): AsyncGenerator<T> {
  const seen = new Set<string>()
  let body = await api.json<MultiEntity<T>>(`${gateway(site)}/wiki/api/v2${path}`, { query })
  for (;;) {
    if (!Array.isArray(body?.results)) throw new ProviderError(null, `confluence: ${path} answered without results`)
    yield* body.results
    const next = body._links?.next
    if (!next) return
    // A cursor that comes back again would loop forever; failing keeps the listing honest.
    if (seen.has(next)) throw new ProviderError(null, `confluence: ${path} repeated its next page link`)
    seen.add(next)
    body = await api.json<MultiEntity<T>>(/^https?:\/\//.test(next) ? next : `${gateway(site)}${next}`)
  }
}

function itemOf(site: Site, space: Space, page: PageSummary): RemoteItem {
  const webui = page._links?.webui
  return {
    externalId: String(page.id),
    title: page.title || 'Untitled',
    version: String(page.version?.number ?? 0),
    url: webui ? `${site.siteUrl}/wiki${webui}` : null,
    container: space.key || space.name,
  }
}
