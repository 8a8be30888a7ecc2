// Zod pieces the MCP tools share: ids, tags, and the annotations that tell clients what a tool changes.
import { z } from 'zod'
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js'

export const Id = (description: string) => z.uuid().describe(description)
export const Tags = z.array(z.string().min(1).max(64)).max(50)

/** Reads change nothing; every tool works on the caller's own service, not the open web. */
export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, openWorldHint: false }
/** Writes only add (or update in place); nothing is deleted. */
export const ADDITIVE = (idempotent: boolean): ToolAnnotations => ({
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: idempotent,
  openWorldHint: false,
})

/** The document fields a tool hands back; outputs are projections, so their schemas can be exact. */
export const DocumentRef = {
  id: z.string(),
  workspace_id: z.string(),
  title: z.string(),
  kind: z.string(),
  status: z.string(),
  tags: z.array(z.string()),
  url: z.string().nullable(),
}

export interface ApiDocument {
  id: string
  workspace_id: string
  title: string
  kind: string
  status: string
  tags: string[]
  url: string | null
  source: string
  body: string
  excerpt: string
  metadata: Record<string, unknown>
  created_at: string
  updated_at: string
}

export const documentRef = (d: ApiDocument) => ({
  id: d.id,
  workspace_id: d.workspace_id,
  title: d.title,
  kind: d.kind,
  status: d.status,
  tags: d.tags,
  url: d.url,
})
