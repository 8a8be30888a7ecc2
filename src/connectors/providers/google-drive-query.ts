// Drive `q` search strings (developers.google.com/drive/api/guides/search-files) the Google Drive connector sends.

export const FOLDER_MIME = 'application/vnd.google-apps.folder'

/** A Drive query string literal: single-quoted, with `\` and `'` escaped by a backslash. */
export function quoteLiteral(value: string): string {
  return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`
}

/** The live (non-trashed) children of one folder, files and subfolders alike. */
export const childrenQuery = (folderId: string) => `${quoteLiteral(folderId)} in parents and trashed = false`

/** Every live folder the user can see: read first, so files can be placed under a folder path. */
export const ALL_FOLDERS_QUERY = `mimeType = ${quoteLiteral(FOLDER_MIME)} and trashed = false`

/** Every live file the user can see that is not a folder. */
export const ALL_FILES_QUERY = `mimeType != ${quoteLiteral(FOLDER_MIME)} and trashed = false`
