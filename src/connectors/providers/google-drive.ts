// Google Drive connector: Google Docs (exported as text), text files, and PDFs, Office and OpenDocument files,
// EPUBs and HTML pages (read as an upload is, src/files) in the selected folders and their subfolders, or in the
// whole drive when nothing is selected. Drive API v3, read-only scope.
import type { ConnectorProvider, RemoteItem, SyncContext } from '../provider'
import { type ProviderApi, ProviderError, SkipItem } from '../provider-api'
import { ALL_FILES_QUERY, ALL_FOLDERS_QUERY, childrenQuery, FOLDER_MIME } from './google-drive-query'
import { extractFile } from '../../files/extract-file'
import { joinSections, UnreadableFile } from '../../files/extracted'
import { GOOGLE_DOC_MIME, isFileType, isPlainType, looksBinary, readableName, skipReasonOf, toPlainText } from './google-drive-text'

interface DriveFile {
  id: string
  name: string
  mimeType: string
  modifiedTime?: string
  /** int64 as a decimal string; grows with every change to the file, content or metadata. */
  version?: string
  size?: string
  webViewLink?: string
  parents?: string[]
  trashed?: boolean
}

interface FileList {
  nextPageToken?: string
  /** True when Drive could not search every corpus: the page is not the whole answer. */
  incompleteSearch?: boolean
  files?: DriveFile[]
}

/** A listed item plus the MIME type content() dispatches on (read again if the engine hands back a bare item). */
interface DriveItem extends RemoteItem {
  mimeType?: string
}

const FILE_FIELDS = 'id,name,mimeType,modifiedTime,version,size,webViewLink,parents'
const LIST_FIELDS = `nextPageToken,incompleteSearch,files(${FILE_FIELDS})`
// Without these Drive leaves shared-drive items out of listings and answers 404 for them.
const ALL_DRIVES = { supportsAllDrives: true }
const LIST_ALL_DRIVES = { supportsAllDrives: true, includeItemsFromAllDrives: true }
const fileUrl = (id: string) => `/drive/v3/files/${encodeURIComponent(id)}`

/** Every file matching `q`, page after page; throws rather than end early. */
async function* searchFiles(api: ProviderApi, q: string): AsyncGenerator<DriveFile> {
  const tokens = new Set<string>()
  let pageToken: string | undefined
  do {
    const page = await api.json<FileList>('/drive/v3/files', {
      query: { q, fields: LIST_FIELDS, pageSize: 1000, pageToken, ...LIST_ALL_DRIVES },
    })
    if (page.incompleteSearch)
      throw new ProviderError(200, `Google Drive could not search every drive for "${q}": the listing would be incomplete`)
    if (!Array.isArray(page.files)) throw new ProviderError(200, 'Google Drive answered a file list without files')
    yield* page.files
    pageToken = page.nextPageToken || undefined
    if (pageToken && tokens.has(pageToken)) throw new ProviderError(200, 'Google Drive repeated a page token: the listing cannot finish')
    if (pageToken) tokens.add(pageToken)
  } while (pageToken)
}

function toItem(file: DriveFile, container: string | undefined, ctx: SyncContext): DriveItem {
  const version = file.version ?? file.modifiedTime
  if (!version) throw new ProviderError(200, `Google Drive listed ${file.id} without a version or modified time`)
  const skip = skipReasonOf(file, ctx.maxBodyBytes, ctx.files.maxBytes)
  return {
    externalId: file.id,
    title: file.name,
    version,
    url: file.webViewLink ?? null,
    container,
    mimeType: file.mimeType,
    ...(skip ? { skip } : {}),
  }
}

/** The selected folders and everything below them, breadth first; each folder walked and each file listed once. */
async function* listFolders(ctx: SyncContext, folderIds: string[]): AsyncGenerator<DriveItem> {
  const queue: { id: string; path: string }[] = []
  for (const id of folderIds) {
    const root = await ctx.api
      .json<DriveFile>(fileUrl(id), { query: { fields: 'id,name,mimeType,trashed', ...ALL_DRIVES } })
      .catch((error: unknown) => {
        if (error instanceof ProviderError && error.status === 404)
          throw new ProviderError(
            404,
            `Google Drive folder ${id} of the selection was not found (deleted, or no longer shared): remove it from the selection`,
          )
        throw error
      })
    if (root.mimeType !== FOLDER_MIME) throw new ProviderError(400, `Google Drive item ${id} of the selection is not a folder`)
    // Trashing a folder trashes what is in it: an empty listing, so its documents are removed.
    if (!root.trashed) queue.push({ id: root.id, path: root.name })
  }
  const walked = new Set<string>() // a folder reachable twice, or through a parent cycle, is walked once
  const listed = new Set<string>() // a file in two selected folders is one document
  for (let folder = queue.shift(); folder; folder = queue.shift()) {
    if (walked.has(folder.id)) continue
    walked.add(folder.id)
    for await (const file of searchFiles(ctx.api, childrenQuery(folder.id))) {
      // Folders are where documents live, not documents: walked, never listed as items.
      if (file.mimeType === FOLDER_MIME) {
        queue.push({ id: file.id, path: `${folder.path}/${file.name}` })
        continue
      }
      if (listed.has(file.id)) continue
      listed.add(file.id)
      yield toItem(file, folder.path, ctx)
    }
  }
}

/** Everything the user can see: folders first, so each file's container can be given as a folder path. */
async function* listEverything(ctx: SyncContext): AsyncGenerator<DriveItem> {
  const folders = new Map<string, DriveFile>()
  for await (const folder of searchFiles(ctx.api, ALL_FOLDERS_QUERY)) folders.set(folder.id, folder)
  const paths = new Map<string, string | undefined>()
  const pathOf = (id: string | undefined): string | undefined => {
    if (!id) return undefined
    if (paths.has(id)) return paths.get(id)
    const names: string[] = []
    const seen = new Set<string>()
    // My Drive's root is not in the listing: a path starts at the first folder that is.
    for (let at = folders.get(id); at && !seen.has(at.id); at = folders.get(at.parents?.[0] ?? '')) {
      seen.add(at.id)
      names.unshift(at.name)
    }
    const path = names.length ? names.join('/') : undefined
    paths.set(id, path)
    return path
  }
  const listed = new Set<string>()
  for await (const file of searchFiles(ctx.api, ALL_FILES_QUERY)) {
    if (listed.has(file.id)) continue
    listed.add(file.id)
    yield toItem(file, pathOf(file.parents?.[0]), ctx)
  }
}

async function exportDoc(ctx: SyncContext, id: string): Promise<string> {
  try {
    return await ctx.api.text(`${fileUrl(id)}/export`, { query: { mimeType: 'text/plain' }, maxBytes: ctx.maxBodyBytes })
  } catch (error) {
    // Drive refuses exports over 10 MB with 403 exportSizeLimitExceeded: far over our own limit anyway.
    if (error instanceof ProviderError && error.status === 403 && /too large to be exported|exportSizeLimitExceeded/i.test(error.message))
      throw new SkipItem('too large to export')
    throw error
  }
}

/** A PDF, an Office file, an HTML page: downloaded and read in a subprocess with the owner's limits, as an upload is;
 * one that cannot be read is skipped with the reason (encrypted, no text layer, over the pages the plan reads). */
async function readFile(ctx: SyncContext, item: RemoteItem, mimeType: string): Promise<string> {
  const bytes = await ctx.api.bytes(fileUrl(item.externalId), { query: { alt: 'media', ...ALL_DRIVES }, maxBytes: ctx.files.maxBytes })
  try {
    return joinSections((await extractFile(bytes, readableName(item.title, mimeType), ctx.files)).sections)
  } catch (error) {
    if (error instanceof UnreadableFile) throw new SkipItem(error.message)
    throw error
  }
}

export const googleDriveProvider: ConnectorProvider = {
  type: 'google_drive',
  oauth: 'google',
  scopes: ['https://www.googleapis.com/auth/drive.readonly'],
  // A refresh token is only issued for offline access, and again on a re-connect only with prompt=consent.
  authorizeParams: { access_type: 'offline', prompt: 'consent', include_granted_scopes: 'true' },
  selectionKey: 'folders',

  async identify(api) {
    const about = await api.json<{ user?: { displayName?: string; emailAddress?: string; permissionId?: string } }>('/drive/v3/about', {
      query: { fields: 'user' },
    })
    const user = about.user
    if (!user?.permissionId) throw new ProviderError(200, 'Google Drive did not say who the token belongs to')
    return { externalAccountId: user.permissionId, accountName: user.emailAddress ?? user.displayName ?? user.permissionId, meta: {} }
  },

  list(ctx) {
    const folders = ctx.config.folders ?? []
    return folders.length ? listFolders(ctx, folders) : listEverything(ctx)
  },

  async content(ctx, item) {
    let mimeType = (item as DriveItem).mimeType
    if (!mimeType) {
      const file = await ctx.api.json<DriveFile>(fileUrl(item.externalId), { query: { fields: 'id,name,mimeType,size', ...ALL_DRIVES } })
      const skip = skipReasonOf(file, ctx.maxBodyBytes, ctx.files.maxBytes)
      if (skip) throw new SkipItem(skip)
      mimeType = file.mimeType
    }
    if (isFileType(mimeType)) return readFile(ctx, item, mimeType)
    let raw: string
    if (mimeType === GOOGLE_DOC_MIME) raw = await exportDoc(ctx, item.externalId)
    else if (isPlainType(mimeType))
      raw = await ctx.api.text(fileUrl(item.externalId), { query: { alt: 'media', ...ALL_DRIVES }, maxBytes: ctx.maxBodyBytes })
    else throw new SkipItem(`unsupported type ${mimeType}`)
    if (looksBinary(raw)) throw new SkipItem('binary content')
    return toPlainText(raw)
  },
}
