// Notion connector (API version 2022-06-28): every page the integration was granted, or those under the chosen
// root pages / databases, found through POST /v1/search and read as text from their block trees.
import type { ConnectionAccount, ConnectorProvider, RemoteItem, SyncContext } from '../provider'
import { type ProviderApi, ProviderError, SkipItem } from '../provider-api'
import {
  type BlockNode,
  blockText,
  type NotionBlock,
  plainText,
  type PropertyValue,
  renderPage,
  type RichText,
  shouldDescend,
  titleOf,
} from './notion-blocks'

export const NOTION_VERSION = '2022-06-28'

interface Parent {
  type: 'workspace' | 'page_id' | 'database_id' | 'block_id' | string
  page_id?: string
  database_id?: string
  block_id?: string
}

interface NotionPage {
  object: 'page'
  id: string
  last_edited_time: string
  archived?: boolean
  in_trash?: boolean
  url?: string
  parent: Parent
  properties: Record<string, PropertyValue>
}

interface NotionDatabase {
  object: 'database'
  id: string
  title?: RichText[]
  archived?: boolean
  in_trash?: boolean
  parent: Parent
}

interface NotionList<T> {
  object: 'list'
  results: T[]
  next_cursor: string | null
  has_more: boolean
}

/** The pages one sync listed, so content() reads a row's properties without fetching the page again. */
const listed = new WeakMap<SyncContext, Map<string, NotionPage>>()

/** Notion ids are UUIDs, shown with or without dashes (and at the end of page URLs): compare them bare. */
export function normalizeNotionId(id: string): string {
  const bare = id.trim().toLowerCase().replaceAll('-', '')
  return bare.match(/([0-9a-f]{32})(?:[?#].*)?$/)?.[1] ?? bare
}

const parentId = (p: Parent | undefined): string | null => p?.page_id ?? p?.database_id ?? p?.block_id ?? null
const gone = (o: { archived?: boolean; in_trash?: boolean }) => o.archived === true || o.in_trash === true

async function paginate<T>(label: string, fetchPage: (cursor: string | undefined) => Promise<NotionList<T>>): Promise<T[]> {
  const out: T[] = []
  const cursors = new Set<string>()
  let cursor: string | undefined
  do {
    const page = await fetchPage(cursor)
    if (!Array.isArray(page?.results)) throw new ProviderError(200, `Notion answered ${label} without results`)
    out.push(...page.results)
    if (!page.has_more) break
    // A listing that claims more but gives no way to reach it is incomplete: never pass it off as whole.
    if (!page.next_cursor || cursors.has(page.next_cursor))
      throw new ProviderError(200, `Notion ${label} has more results but no usable next_cursor`)
    cursor = page.next_cursor
    cursors.add(cursor)
  } while (cursor)
  return out
}

/** Every object of one kind the token can see (search pages through them 100 at a time). */
async function searchAll<T extends { object: string; id: string }>(api: ProviderApi, value: 'page' | 'database'): Promise<Map<string, T>> {
  const results = await paginate<T>(`search for ${value}s`, (cursor) =>
    api.json('/v1/search', {
      method: 'POST',
      body: { filter: { property: 'object', value }, page_size: 100, ...(cursor ? { start_cursor: cursor } : {}) },
    }),
  )
  // Search may repeat an object across pages while the workspace changes: one entry per id.
  return new Map(results.filter((r) => r.object === value).map((r) => [normalizeNotionId(r.id), r]))
}

/** Where each page and database sits, for the selection and the container name. */
class Hierarchy {
  private blockParents = new Map<string, Parent | null>()
  private within = new Map<string, boolean>()

  constructor(
    private api: ProviderApi,
    readonly pages: Map<string, NotionPage>,
    readonly databases: Map<string, NotionDatabase>,
  ) {}

  /** The parent of a page, database or block; a block's is fetched once (a page can sit in a column or toggle). */
  private async parentOf(rawId: string): Promise<Parent | null> {
    const id = normalizeNotionId(rawId)
    const known = this.pages.get(id) ?? this.databases.get(id)
    if (known) return known.parent
    if (this.blockParents.has(id)) return this.blockParents.get(id)!
    let parent: Parent | null = null
    try {
      parent = (await this.api.json<{ parent?: Parent }>(`/v1/blocks/${rawId}`)).parent ?? null
    } catch (error) {
      // A block the integration may not read ends the chain; any other failure must fail the listing.
      if (!(error instanceof ProviderError && error.status === 404)) throw error
    }
    this.blockParents.set(id, parent)
    return parent
  }

  /** Whether the object or one of its ancestors is a selected root. */
  async isWithin(rawId: string, roots: Set<string>): Promise<boolean> {
    const chain: string[] = []
    let current: string | null = rawId
    let result = false
    while (current && chain.length < 64) {
      const id = normalizeNotionId(current)
      const memo = this.within.get(id)
      if (memo !== undefined) {
        result = memo
        break
      }
      if (chain.includes(id)) break
      chain.push(id)
      if (roots.has(id)) {
        result = true
        break
      }
      current = parentId((await this.parentOf(current)) ?? undefined)
    }
    for (const link of chain) this.within.set(link, result)
    return result
  }

  /** The parent's title when it is known without another call. */
  containerOf(parent: Parent, account: ConnectionAccount): string | undefined {
    if (parent.type === 'workspace') return account.accountName
    let id = parentId(parent)
    for (let hops = 0; id && hops < 64; hops++) {
      const key = normalizeNotionId(id)
      const page = this.pages.get(key)
      if (page) return titleOf(page.properties)
      const db = this.databases.get(key)
      if (db) return plainText(db.title).trim() || 'Untitled'
      id = parentId(this.blockParents.get(key) ?? undefined)
    }
    return undefined
  }
}

async function* listPages(ctx: SyncContext): AsyncIterable<RemoteItem> {
  const pages = await searchAll<NotionPage>(ctx.api, 'page')
  const roots = new Set((ctx.config.pages ?? []).map(normalizeNotionId).filter(Boolean))
  const needDatabases = roots.size > 0 || [...pages.values()].some((p) => p.parent?.type === 'database_id')
  const databases = needDatabases ? await searchAll<NotionDatabase>(ctx.api, 'database') : new Map<string, NotionDatabase>()
  const tree = new Hierarchy(ctx.api, pages, databases)

  const items: RemoteItem[] = []
  const chosen = new Map<string, NotionPage>()
  for (const page of pages.values()) {
    // Pages in the trash are left out, so what was imported from them is removed.
    if (gone(page)) continue
    if (roots.size > 0 && !(await tree.isWithin(page.id, roots))) continue
    chosen.set(page.id, page)
    items.push({
      externalId: page.id,
      title: titleOf(page.properties),
      version: page.last_edited_time,
      url: page.url ?? null,
      container: tree.containerOf(page.parent ?? { type: 'workspace' }, ctx.account),
    })
  }
  listed.set(ctx, chosen)
  yield* items
}

/** A block's children, all pages of them, descending into nested blocks; stops once the text is too big. */
async function fetchChildren(ctx: SyncContext, blockId: string, budget: { bytes: number }): Promise<BlockNode[]> {
  const blocks = await paginate<NotionBlock>('block children', (cursor) =>
    ctx.api.json(`/v1/blocks/${blockId}/children`, { query: { page_size: 100, start_cursor: cursor }, maxBytes: ctx.maxBodyBytes }),
  )
  const nodes: BlockNode[] = []
  for (const block of blocks) {
    budget.bytes += Buffer.byteLength(blockText(block) ?? '') + 1
    if (budget.bytes > ctx.maxBodyBytes) throw new SkipItem(`larger than ${ctx.maxBodyBytes} bytes`)
    nodes.push({ block, children: shouldDescend(block) ? await fetchChildren(ctx, block.id, budget) : [] })
  }
  return nodes
}

async function pageContent(ctx: SyncContext, item: RemoteItem): Promise<string> {
  try {
    const page = listed.get(ctx)?.get(item.externalId) ?? (await ctx.api.json<NotionPage>(`/v1/pages/${item.externalId}`))
    if (gone(page)) throw new SkipItem('moved to the trash')
    const blocks = await fetchChildren(ctx, page.id, { bytes: 0 })
    const text = renderPage(page.properties, blocks, page.parent?.type === 'database_id')
    if (Buffer.byteLength(text) > ctx.maxBodyBytes) throw new SkipItem(`larger than ${ctx.maxBodyBytes} bytes`)
    return text
  } catch (error) {
    // Deleted or unshared since the listing: the next sync's listing drops it.
    if (error instanceof ProviderError && error.status === 404) throw new SkipItem('no longer found in Notion')
    throw error
  }
}

export const notionProvider: ConnectorProvider = {
  type: 'notion',
  oauth: 'notion',
  // Notion has no scopes: the user picks the pages to share on its consent screen.
  scopes: [],
  authorizeParams: { owner: 'user' },
  headers: { 'Notion-Version': NOTION_VERSION },
  selectionKey: 'pages',
  async identify(_api, tokenData) {
    const workspaceId = tokenData.workspace_id
    if (typeof workspaceId !== 'string' || !workspaceId) throw new ProviderError(null, 'Notion token response has no workspace_id')
    const name = tokenData.workspace_name
    return {
      externalAccountId: workspaceId,
      accountName: typeof name === 'string' && name ? name : 'Notion workspace',
      meta: { bot_id: tokenData.bot_id ?? null },
    }
  },
  list: listPages,
  content: pageContent,
}
