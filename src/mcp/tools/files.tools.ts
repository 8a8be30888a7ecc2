// MCP tool upload_file: a file's bytes (base64) through POST /api/documents/files, read in the background like
// any upload; get_document shows its file's state (processing, done, or failed with the reason).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import type { Logger } from '../../log'
import { callJson, toolHandler, ToolFailure, type ApiCaller } from '../mcp.tool'
import { ADDITIVE, documentRef, DocumentRef, Id, Tags, type ApiDocument } from './tool.schemas'

interface ApiUploaded extends ApiDocument {
  index_status: string
  deduplicated: boolean
  file: { name: string; format: string; size_bytes: number; status: string; error: string | null }
}

/** Base64 (standard or URL-safe, padding optional) as bytes; null when it is not base64. */
export function fromBase64(text: string): Uint8Array | null {
  const clean = text.replace(/\s+/g, '').replace(/-/g, '+').replace(/_/g, '/')
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean) || clean.length % 4 === 1) return null
  return Uint8Array.from(Buffer.from(clean, 'base64'))
}

export function registerFileTools(server: McpServer, api: ApiCaller | null, log?: Logger) {
  server.registerTool(
    'upload_file',
    {
      title: 'Upload a file',
      description:
        'Store a file (PDF, DOCX, PPTX, XLSX, CSV, HTML, Markdown or plain text) as a document: its text is read in the background, ' +
        'so the document is processing at first; get_document shows when it is searchable (file.status done) or why it could not ' +
        'be read (file.status failed, file.error). Search results and answers then say the page, slide or sheet of each passage. ' +
        'The same file again changes nothing; a file of the same name in the workspace with other content replaces its text.',
      inputSchema: {
        filename: z.string().min(1).max(255).describe('The file name with its extension, e.g. report.pdf'),
        content_base64: z.string().min(1).describe('The file, base64-encoded (at most ~24 MiB of file in one call)'),
        workspace_id: Id('Where to store it (default: your default workspace)').optional(),
        title: z.string().min(1).max(500).optional().describe("Default: the file's own title, else its name"),
        tags: Tags.optional(),
      },
      outputSchema: {
        ...DocumentRef,
        index_status: z.string().describe('processing until the text is read'),
        deduplicated: z.boolean().describe('true: the same file was already stored'),
        file: z.object({
          name: z.string(),
          format: z.string(),
          size_bytes: z.number().int(),
          status: z.string(),
          error: z.string().nullable(),
        }),
      },
      annotations: ADDITIVE(true),
    },
    toolHandler('upload_file', api, log, async (api, { filename, content_base64, workspace_id, title, tags }, signal) => {
      const bytes = fromBase64(content_base64)
      if (!bytes) throw new ToolFailure('content_base64 is not base64')
      const form = new FormData()
      form.set('file', new File([bytes as Uint8Array<ArrayBuffer>], filename))
      if (workspace_id) form.set('workspace_id', workspace_id)
      if (title) form.set('title', title)
      if (tags?.length) form.set('tags', tags.join(','))
      const d = await callJson<ApiUploaded>(api, 'POST', '/api/documents/files', form, signal)
      const { name, format, size_bytes, status, error } = d.file
      return {
        ...documentRef(d),
        index_status: d.index_status,
        deduplicated: d.deduplicated,
        file: { name, format, size_bytes, status, error },
      }
    }),
  )
}
