// Drive query strings: literals escaped the way Drive's search syntax requires.
import { describe, expect, test } from 'bun:test'
import { ALL_FILES_QUERY, ALL_FOLDERS_QUERY, childrenQuery, quoteLiteral } from './google-drive-query'

describe('google drive query', () => {
  test('a literal is single-quoted with quote and backslash escaped', () => {
    expect(quoteLiteral('plain-ID_1')).toBe("'plain-ID_1'")
    expect(quoteLiteral("Bob's \\ notes")).toBe("'Bob\\'s \\\\ notes'")
  })

  test('children of a folder exclude the trash', () => {
    expect(childrenQuery('1AbC')).toBe("'1AbC' in parents and trashed = false")
  })

  test('the whole-drive queries split folders from files', () => {
    expect(ALL_FOLDERS_QUERY).toBe("mimeType = 'application/vnd.google-apps.folder' and trashed = false")
    expect(ALL_FILES_QUERY).toBe("mimeType != 'application/vnd.google-apps.folder' and trashed = false")
  })
})
