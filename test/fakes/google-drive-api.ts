// The fake Google Drive's files and its Drive API v3 read endpoints: about.get, files.list (q, fields,
// pageSize/pageToken pagination, incompleteSearch), files.get (metadata or alt=media) and files.export.
// Errors come in Drive's JSON shape { error: { code, message, errors: [{ domain, reason, message }] } }.
import { randomBytes } from 'node:crypto'
import { DriveQueryError, type FieldSchema, parseFields, parseQuery, project } from './google-drive-query'

export const FOLDER = 'application/vnd.google-apps.folder'
export const DOC = 'application/vnd.google-apps.document'
export const SHEET = 'application/vnd.google-apps.spreadsheet'

export interface DriveFakeFile {
  id: string
  name: string
  mimeType: string
  parents: string[]
  /** The file's bytes (text, or a binary such as a PDF), or what a Google-native file exports as. */
  content: string | Uint8Array
  /** Drive's `version`: grows with every change, content or metadata. */
  version: number
  createdTime: string
  modifiedTime: string
  /** Trashed itself (a trashed folder's contents are trashed implicitly). */
  trashed: boolean
  /** Stands in for the byte size of a binary the test does not want to spell out. */
  size?: number
}

export interface DriveUser {
  displayName: string
  emailAddress: string
  permissionId: string
}

export interface NewDriveFile {
  name: string
  mimeType?: string
  content?: string | Uint8Array
  /** Folder ids; My Drive's root when absent. */
  parents?: string[]
  size?: number
}

export type DriveError = (status: number, reason: string, message: string, location?: string) => Response

const FILE: FieldSchema = Object.fromEntries(
  [
    'kind',
    'id',
    'name',
    'mimeType',
    'parents',
    'trashed',
    'explicitlyTrashed',
    'version',
    'createdTime',
    'modifiedTime',
    'webViewLink',
    'size',
    'md5Checksum',
    'driveId',
    'description',
    'starred',
  ].map((k) => [k, true]),
) as FieldSchema
const FILE_LIST: FieldSchema = { kind: true, nextPageToken: true, incompleteSearch: true, files: FILE }
const ABOUT: FieldSchema = {
  kind: true,
  user: { kind: true, displayName: true, emailAddress: true, permissionId: true, photoLink: true, me: true },
  storageQuota: true,
}
const SYSTEM_PARAMS = ['fields', 'alt', 'prettyPrint', 'key', 'quotaUser', 'access_token', 'callback']
const LIST_PARAMS = [
  ...SYSTEM_PARAMS,
  'q',
  'pageSize',
  'pageToken',
  'orderBy',
  'spaces',
  'corpora',
  'driveId',
  'supportsAllDrives',
  'includeItemsFromAllDrives',
  'supportsTeamDrives',
  'includeTeamDriveItems',
  'includeLabels',
  'includePermissionsForView',
]
const GET_PARAMS = [
  ...SYSTEM_PARAMS,
  'supportsAllDrives',
  'supportsTeamDrives',
  'acknowledgeAbuse',
  'includeLabels',
  'includePermissionsForView',
]
const EXPORT_PARAMS = [...SYSTEM_PARAMS, 'mimeType']
const BOOLEAN_PARAMS = [
  'supportsAllDrives',
  'includeItemsFromAllDrives',
  'supportsTeamDrives',
  'includeTeamDriveItems',
  'acknowledgeAbuse',
  'prettyPrint',
]

/** What each Google-native type exports to. Drive's text/plain export of a Doc starts with a BOM and uses CRLF. */
const EXPORTS: Record<string, Record<string, (content: string) => string>> = {
  [DOC]: {
    'text/plain': (c) => `\uFEFF${c.replace(/\r?\n/g, '\r\n')}`,
    'text/markdown': (c) => c,
    'text/html': (c) => `<html><body><p>${Bun.escapeHTML(c)}</p></body></html>`,
  },
  [SHEET]: { 'text/csv': (c) => c },
}

export const newDriveId = () => `1${randomBytes(24).toString('base64url')}`

export function createDriveStore(options: { pageLimit?: number; exportLimitBytes?: number }) {
  const files = new Map<string, DriveFakeFile>()
  const rootId = `0A${randomBytes(8).toString('base64url')}Uk9PVA`
  let incompleteSearch = false
  let lastTime = Date.now()
  // Strictly increasing, like the server clock an edit is stamped with.
  const now = () => new Date((lastTime = Math.max(Date.now(), lastTime + 1))).toISOString()
  const pageLimit = options.pageLimit ?? 1000
  const exportLimit = options.exportLimitBytes ?? 10 * 1024 * 1024

  function must(id: string): DriveFakeFile {
    const file = files.get(id)
    if (!file) throw new Error(`fake drive: no file ${id}`)
    return file
  }
  function touch(file: DriveFakeFile, contentChanged: boolean) {
    file.version += 1 + Math.floor(Math.random() * 3) // Drive's version only ever grows, not always by one
    if (contentChanged) file.modifiedTime = now()
  }
  function trashedOf(file: DriveFakeFile, seen = new Set<string>()): boolean {
    if (file.trashed) return true
    seen.add(file.id)
    return file.parents.some((p) => !seen.has(p) && files.has(p) && trashedOf(files.get(p)!, seen))
  }
  const sizeOf = (f: DriveFakeFile) => (f.mimeType === FOLDER ? undefined : String(f.size ?? Buffer.byteLength(f.content)))
  const linkOf = (f: DriveFakeFile) =>
    f.mimeType === FOLDER
      ? `https://drive.google.com/drive/folders/${f.id}`
      : f.mimeType === DOC
        ? `https://docs.google.com/document/d/${f.id}/edit?usp=drivesdk`
        : `https://drive.google.com/file/d/${f.id}/view?usp=drivesdk`
  const resourceOf = (f: DriveFakeFile) => ({
    kind: 'drive#file',
    id: f.id,
    name: f.name,
    mimeType: f.mimeType,
    parents: f.parents,
    trashed: trashedOf(f),
    explicitlyTrashed: f.trashed,
    version: String(f.version),
    createdTime: f.createdTime,
    modifiedTime: f.modifiedTime,
    webViewLink: linkOf(f),
    size: sizeOf(f),
  })
  const rootResource = () => ({
    kind: 'drive#file',
    id: rootId,
    name: 'My Drive',
    mimeType: FOLDER,
    trashed: false,
    explicitlyTrashed: false,
    version: '1',
    webViewLink: 'https://drive.google.com/drive/my-drive',
  })

  function checkParams(query: Record<string, string>, allowed: string[], error: DriveError): Response | null {
    for (const [k, v] of Object.entries(query)) {
      if (!allowed.includes(k)) return error(400, 'invalidParameter', `Invalid parameter: ${k}`, k)
      if (BOOLEAN_PARAMS.includes(k) && v !== 'true' && v !== 'false') return error(400, 'invalid', 'Invalid Value', k)
    }
    return null
  }

  function listFiles(query: Record<string, string>, error: DriveError): Response {
    const pageSize = query.pageSize === undefined ? 100 : Number(query.pageSize)
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 1000) return error(400, 'invalid', 'Invalid Value', 'pageSize')
    const q = query.q ?? ''
    const matches = q ? parseQuery(q, rootId) : () => true
    let offset = 0
    if (query.pageToken !== undefined) {
      // A page token belongs to the query it was issued for.
      const token = JSON.parse(Buffer.from(query.pageToken, 'base64url').toString() || 'null') as { q: string; offset: number } | null
      if (!token || token.q !== q) return error(400, 'invalid', 'Invalid Value', 'pageToken')
      offset = token.offset
    }
    const found = [...files.values()].filter((f) =>
      matches({ name: f.name, mimeType: f.mimeType, parents: f.parents, trashed: trashedOf(f) }),
    )
    const end = offset + Math.min(pageSize, pageLimit)
    const nextPageToken = end < found.length ? Buffer.from(JSON.stringify({ q, offset: end })).toString('base64url') : undefined
    const body = { kind: 'drive#fileList', nextPageToken, incompleteSearch, files: found.slice(offset, end).map(resourceOf) }
    return Response.json(
      project(body, parseFields(query.fields ?? 'kind,nextPageToken,incompleteSearch,files(kind,id,name,mimeType)'), FILE_LIST),
    )
  }

  function getFile(id: string, query: Record<string, string>, error: DriveError): Response {
    const file = files.get(id)
    if (!file && id !== 'root' && id !== rootId) return error(404, 'notFound', `File not found: ${id}.`, 'fileId')
    if (query.alt === 'media') {
      if (!file || file.mimeType.startsWith('application/vnd.google-apps.'))
        return error(
          403,
          'fileNotDownloadable',
          'Only files with binary content can be downloaded. Use Export with Docs Editors files.',
          'alt',
        )
      return new Response(file.content as BodyInit, { headers: { 'content-type': file.mimeType } })
    }
    if (query.alt !== undefined && query.alt !== 'json') return error(400, 'invalid', 'Invalid Value', 'alt')
    return Response.json(project(file ? resourceOf(file) : rootResource(), parseFields(query.fields ?? 'kind,id,name,mimeType'), FILE))
  }

  function exportFile(id: string, query: Record<string, string>, error: DriveError): Response {
    const file = files.get(id)
    if (!file) return error(404, 'notFound', `File not found: ${id}.`, 'fileId')
    if (!query.mimeType) return error(400, 'required', 'Required parameter: mimeType', 'mimeType')
    const formats = EXPORTS[file.mimeType]
    if (!formats) return error(403, 'fileNotExportable', 'Export only supports Docs Editors files.')
    const convert = formats[query.mimeType]
    if (!convert) return error(400, 'badRequest', 'The requested conversion is not supported.', 'convertTo')
    const body = convert(String(file.content))
    if (Buffer.byteLength(body) > exportLimit) return error(403, 'exportSizeLimitExceeded', 'This file is too large to be exported.')
    return new Response(body, { headers: { 'content-type': `${query.mimeType}; charset=utf-8` } })
  }

  function about(query: Record<string, string>, user: DriveUser, error: DriveError): Response {
    if (!query.fields) return error(400, 'required', "The 'fields' parameter is required for this method.", 'fields')
    const body = {
      kind: 'drive#about',
      user: { kind: 'drive#user', ...user, photoLink: `https://lh3.googleusercontent.com/a/${user.permissionId}=s64`, me: true },
    }
    return Response.json(project(body, parseFields(query.fields), ABOUT))
  }

  /** Deleted for good; a folder takes what is only below it along, as in Drive. */
  function deleteFile(id: string) {
    must(id)
    files.delete(id)
    for (const child of [...files.values()]) {
      if (!child.parents.includes(id)) continue
      if (child.parents.length === 1) deleteFile(child.id)
      else child.parents = child.parents.filter((p) => p !== id)
    }
  }

  /** Answers one authorised Drive API request. */
  function handle(path: string, query: Record<string, string>, user: DriveUser, error: DriveError): Response {
    try {
      if (path === '/drive/v3/about') return checkParams(query, SYSTEM_PARAMS, error) ?? about(query, user, error)
      if (path === '/drive/v3/files') return checkParams(query, LIST_PARAMS, error) ?? listFiles(query, error)
      const m = /^\/drive\/v3\/files\/([^/]+)(\/export)?$/.exec(path)
      if (m) {
        const id = decodeURIComponent(m[1]!)
        return m[2]
          ? (checkParams(query, EXPORT_PARAMS, error) ?? exportFile(id, query, error))
          : (checkParams(query, GET_PARAMS, error) ?? getFile(id, query, error))
      }
      return error(404, 'notFound', 'Not Found')
    } catch (e) {
      if (e instanceof DriveQueryError) return error(400, e.location === 'q' ? 'invalid' : 'invalidParameter', e.message, e.location)
      throw e
    }
  }

  return {
    files,
    rootId,
    handle,
    setIncompleteSearch: (on: boolean) => {
      incompleteSearch = on
    },
    addFile(input: NewDriveFile): DriveFakeFile {
      const at = now()
      const file: DriveFakeFile = {
        id: newDriveId(),
        name: input.name,
        mimeType: input.mimeType ?? 'text/plain',
        parents: input.parents ?? [rootId],
        content: input.content ?? '',
        version: 1,
        createdTime: at,
        modifiedTime: at,
        trashed: false,
        ...(input.size !== undefined ? { size: input.size } : {}),
      }
      files.set(file.id, file)
      return file
    },
    editFile(id: string, change: { content?: string; name?: string }): DriveFakeFile {
      const file = must(id)
      if (change.content !== undefined) file.content = change.content
      if (change.name !== undefined) file.name = change.name
      touch(file, true)
      return file
    },
    moveFile(id: string, parents: string[]) {
      const file = must(id)
      file.parents = parents
      touch(file, false)
    },
    trashFile(id: string, trashed = true) {
      const file = must(id)
      file.trashed = trashed
      touch(file, false)
    },
    deleteFile,
  }
}

export type DriveStore = ReturnType<typeof createDriveStore>
