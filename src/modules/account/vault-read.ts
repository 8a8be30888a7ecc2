// A zip of a Markdown folder (an Obsidian vault) read as notes: front matter gives the title and tags, else the
// first `# ` heading or the file name gives the title; each folder on a note's path becomes a tag (not a workspace:
// folders nest and a note sits in one, while tags are many per document and filter search the same way, and a
// vault of forty folders would otherwise pass a plan's workspace cap and split search into forty scopes);
// [[wikilinks]] between the notes become completed links. Every other file is skipped and counted.
import { bodySizeProblem, normalizeTags } from '../documents/documents.model'
import { badEntry, storable, textOf } from './archive-fields'
import type { ImportContent } from './archive-read'
import { readZip, type ZipEntryInfo } from './archive-zip'

const IGNORED = /(^|\/)(\.obsidian|\.trash|__MACOSX|\.git)\//
const isNote = (name: string) => /\.md$/i.test(name) && !IGNORED.test(name)
const WIKILINK = /(!?)\[\[([^\]|#^\n]+)(?:[#^][^\]|\n]*)?(?:\|[^\]\n]*)?\]\]/g

export function readVault(bytes: Uint8Array, entries: ZipEntryInfo[], source: string, now: Date): ImportContent {
  const notes = entries.filter((e) => isNote(e.name))
  const skipped = entries.filter((e) => !e.name.endsWith('/') && !isNote(e.name)).length
  const files = readZip(bytes, notes, (name) => isNote(name))
  const root = commonFolder(notes.map((n) => n.name))
  const at = now.toISOString()
  const documents: ImportContent['documents'] = []
  const byName = new Map<string, string>()
  let empty = 0
  for (const { name } of notes) {
    const text = textOf(name, files.get(name)!).replace(/^\uFEFF/, '')
    if (!storable(text)) throw badEntry(name, 'must be Unicode text without NUL')
    const path = name.slice(root.length)
    const { front, body } = splitFrontMatter(name, text)
    if (body.trim() === '') {
      empty++
      continue
    }
    const tooLarge = bodySizeProblem(Buffer.byteLength(body))
    if (tooLarge) throw badEntry(name, tooLarge)
    const base = path.split('/').at(-1)!.replace(/\.md$/i, '')
    const folders = path.split('/').slice(0, -1)
    const id = `note:${path}`
    documents.push({
      id,
      workspace: null,
      kind: 'note',
      status: 'active',
      archived_from: null,
      title: titleOf(front, body, base),
      excerpt: '',
      body,
      tags: normalizeTags([...tagsOf(front), ...folders].map((t) => t.slice(0, 64))).slice(0, 50),
      source,
      source_ref: null,
      external_id: null,
      url: null,
      metadata: { vault_path: path },
      pinned: false,
      rating: 0,
      occurred_at: at,
      thread: null,
      position: null,
      speaker: null,
      created_at: at,
      updated_at: at,
      original: null,
      sections: null,
    })
    // [[Name]] finds a note by its file name; [[folder/Name]] by its path.
    for (const key of [base, path.replace(/\.md$/i, '')]) if (!byName.has(key.toLowerCase())) byName.set(key.toLowerCase(), id)
  }
  return {
    format: 'obsidian',
    workspaces: [],
    threads: [],
    documents,
    links: linksOf(documents, byName),
    settings: null,
    originals: [],
    skipped_entries: skipped + empty,
  }
}

/** A folder every note is under (a vault zipped with its own folder): not a tag of every note. */
function commonFolder(names: string[]): string {
  const first = names[0]?.split('/')
  if (!first || first.length < 2) return ''
  const folder = `${first[0]}/`
  return names.every((n) => n.startsWith(folder)) ? folder : ''
}

function splitFrontMatter(name: string, text: string): { front: Record<string, unknown>; body: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(\r?\n|$)/.exec(text)
  if (!match) return { front: {}, body: text }
  let front: unknown
  try {
    front = Bun.YAML.parse(match[1]!)
  } catch {
    throw badEntry(name, 'its front matter is not valid YAML')
  }
  const body = text.slice(match[0].length).replace(/^\s*\n/, '')
  return { front: front && typeof front === 'object' && !Array.isArray(front) ? (front as Record<string, unknown>) : {}, body }
}

function titleOf(front: Record<string, unknown>, body: string, base: string): string {
  if (typeof front.title === 'string' && front.title.trim()) return front.title.trim().slice(0, 500)
  const heading = /^#\s+(.+)$/m.exec(body)?.[1]?.trim()
  return (heading || base || 'Untitled').slice(0, 500)
}

/** `tags: [a, b]`, `tags: a, b` or `tags: "#a #b"`; `aliases` are other names of the note, not kept. */
function tagsOf(front: Record<string, unknown>): string[] {
  const raw = front.tags ?? front.tag
  const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(/[,\s]+/) : []
  return list.filter((t): t is string => typeof t === 'string').map((t) => t.replace(/^#/, ''))
}

function linksOf(documents: ImportContent['documents'], byName: Map<string, string>): ImportContent['links'] {
  const pairs = new Set<string>()
  const links: ImportContent['links'] = []
  for (const d of documents) {
    for (const [, embed, target] of d.body.matchAll(WIKILINK)) {
      if (embed) continue // ![[image.png]] shows a file, it does not link a note
      const to = byName.get(target!.trim().replace(/\.md$/i, '').toLowerCase())
      if (!to || to === d.id) continue
      const pair = [d.id, to].sort().join('\n')
      if (pairs.has(pair)) continue
      pairs.add(pair)
      links.push({ source: d.id, target: to, score: 1, status: 'completed', origin: 'manual' })
    }
  }
  return links
}
