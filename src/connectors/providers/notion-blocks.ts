// Notion's JSON (rich text, blocks, page properties; API version 2022-06-28) as readable plain text.

export interface RichText {
  plain_text?: string
  text?: { content?: string }
}

/** A block as the API returns it: `type` names the key holding its data (`paragraph: { rich_text }`). */
export interface NotionBlock {
  id: string
  type: string
  has_children?: boolean
  [data: string]: unknown
}

/** A block with its fetched children (empty when it has none or was not descended into). */
export interface BlockNode {
  block: NotionBlock
  children: BlockNode[]
}

/** A page property value: `type` names the key holding it (`select: { name }`). */
export interface PropertyValue {
  type: string
  [data: string]: unknown
}

type Data = Record<string, unknown>

export function plainText(richText: unknown): string {
  if (!Array.isArray(richText)) return ''
  return richText.map((r: RichText) => r?.plain_text ?? r?.text?.content ?? '').join('')
}

/** Blocks that only group others: their children stay at the same depth and they add no line. */
const TRANSPARENT = new Set(['synced_block', 'column_list', 'column', 'table'])
const HEADINGS = new Set(['heading_1', 'heading_2', 'heading_3'])
/** Blocks whose children are part of the text (toggleable headings hold theirs too). */
const NESTING = new Set([
  ...TRANSPARENT,
  ...HEADINGS,
  'paragraph',
  'bulleted_list_item',
  'numbered_list_item',
  'to_do',
  'toggle',
  'quote',
  'callout',
])

/**
 * Whether the block's children are fetched: child pages and databases are items of their own, and the children
 * of a type that renders nothing would be dropped anyway.
 */
export function shouldDescend(block: NotionBlock): boolean {
  return block.has_children === true && NESTING.has(block.type)
}

/** The block's own text (children apart); null for blocks that render nothing. */
export function blockText(block: NotionBlock, listNumber = 1): string | null {
  const data = (block[block.type] ?? {}) as Data
  const text = plainText(data.rich_text)
  switch (block.type) {
    case 'paragraph':
    case 'heading_1':
    case 'heading_2':
    case 'heading_3':
    case 'toggle':
      return text
    case 'bulleted_list_item':
      return `- ${text}`
    case 'numbered_list_item':
      return `${listNumber}. ${text}`
    case 'to_do':
      return `[${data.checked ? 'x' : ' '}] ${text}`
    case 'quote':
      return `> ${text}`
    case 'callout': {
      const icon = data.icon as { type?: string; emoji?: string } | null | undefined
      return icon?.type === 'emoji' && icon.emoji ? `${icon.emoji} ${text}` : text
    }
    case 'code':
      return text
    case 'table_row':
      return ((data.cells as unknown[] | undefined) ?? []).map((cell) => plainText(cell).replaceAll('\n', ' ')).join(' | ')
    case 'child_page':
    case 'child_database':
      return typeof data.title === 'string' ? data.title : null
    case 'bookmark':
    case 'embed':
    case 'link_preview': {
      const caption = plainText(data.caption)
      const url = typeof data.url === 'string' ? data.url : ''
      return [caption, url].filter(Boolean).join(' ') || null
    }
    case 'equation':
      return typeof data.expression === 'string' ? data.expression : null
    case 'divider':
      return '---'
    default:
      return null
  }
}

/** Blocks as lines: nested children indented two spaces, numbered lists counted, a blank line before headings. */
export function renderBlocks(nodes: BlockNode[], depth = 0): string[] {
  const lines: string[] = []
  const indent = '  '.repeat(depth)
  let listNumber = 0
  for (const { block, children } of nodes) {
    listNumber = block.type === 'numbered_list_item' ? listNumber + 1 : 0
    if (TRANSPARENT.has(block.type)) {
      lines.push(...renderBlocks(children, depth))
      continue
    }
    const text = blockText(block, listNumber)
    if (text !== null) {
      if (HEADINGS.has(block.type) && lines.length > 0 && lines.at(-1) !== '') lines.push('')
      lines.push(...text.split('\n').map((line) => (line ? indent + line : line)))
    }
    // Children of a block that renders nothing (an unknown type) are dropped with it.
    if (text !== null && children.length > 0) lines.push(...renderBlocks(children, depth + 1))
  }
  return lines
}

/** The page's title from whichever property has type `title` (database rows name it freely). */
export function titleOf(properties: Record<string, PropertyValue> | undefined): string {
  const title = Object.values(properties ?? {}).find((p) => p?.type === 'title')
  return plainText(title?.title).trim() || 'Untitled'
}

/** A property value as text; '' when empty or not meaningful as text (relations are bare ids). */
export function propertyText(value: PropertyValue): string {
  const v = value[value.type]
  const named = (x: unknown) => ((x as { name?: unknown } | null)?.name as string | undefined) ?? ''
  switch (value.type) {
    case 'rich_text':
    case 'title':
      return plainText(v)
    case 'number':
      return typeof v === 'number' ? String(v) : ''
    case 'checkbox':
      return v ? 'Yes' : 'No'
    case 'select':
    case 'status':
      return named(v)
    case 'multi_select':
    case 'people':
      return Array.isArray(v) ? v.map(named).filter(Boolean).join(', ') : ''
    case 'created_by':
    case 'last_edited_by':
      return named(v)
    case 'date': {
      const d = v as { start?: string; end?: string | null } | null
      return d?.start ? (d.end ? `${d.start} → ${d.end}` : d.start) : ''
    }
    case 'url':
    case 'email':
    case 'phone_number':
    case 'created_time':
    case 'last_edited_time':
      return typeof v === 'string' ? v : ''
    case 'files':
      return Array.isArray(v) ? v.map(named).filter(Boolean).join(', ') : ''
    case 'unique_id': {
      const u = v as { prefix?: string | null; number?: number | null } | null
      return u?.number == null ? '' : u.prefix ? `${u.prefix}-${u.number}` : String(u.number)
    }
    case 'formula': {
      const f = v as Data | null
      return f && typeof f.type === 'string' ? propertyText(f as PropertyValue) : ''
    }
    case 'rollup': {
      const r = v as Data | null
      if (!r || typeof r.type !== 'string') return ''
      if (r.type === 'array')
        return Array.isArray(r.array)
          ? r.array
              .map((x) => propertyText(x as PropertyValue))
              .filter(Boolean)
              .join(', ')
          : ''
      return propertyText(r as PropertyValue)
    }
    case 'string':
      return typeof v === 'string' ? v : ''
    case 'boolean':
      return v ? 'Yes' : 'No'
    default:
      return ''
  }
}

/** A database row's properties other than its title, as `Name: value` lines (empty ones left out). */
export function propertyLines(properties: Record<string, PropertyValue> | undefined): string[] {
  const lines: string[] = []
  for (const [name, value] of Object.entries(properties ?? {})) {
    if (!value || value.type === 'title') continue
    const text = propertyText(value).replaceAll('\n', ' ').trim()
    if (text) lines.push(`${name}: ${text}`)
  }
  return lines
}

/** The whole page: a row's properties first, a blank line, then its blocks. */
export function renderPage(properties: Record<string, PropertyValue> | undefined, blocks: BlockNode[], isDatabaseRow: boolean): string {
  const head = isDatabaseRow ? propertyLines(properties) : []
  const body = renderBlocks(blocks)
  return [...head, ...(head.length && body.length ? [''] : []), ...body].join('\n').trim()
}
