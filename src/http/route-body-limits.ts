// How large a request body each route takes: read by the body parser (body-limit.ts) and by the error mapper
// (errors.ts), which answers an over-long Content-Length before any body is read.

export const MAX_BODY_BYTES = 2 * 1024 * 1024

/** Routes that take more than MAX_BODY_BYTES: a bulk ingest carries up to 1,000 documents, over REST or as the
 * MCP tool add_documents. */
export const BULK_BODY_BYTES = 32 * 1024 * 1024
/** The largest file an upload takes on any plan (each plan's own is PLAN_*_FILE_BYTES), and its multipart framing. */
export const MAX_FILE_BYTES = 100 * 1024 * 1024
/** An account archive is read whole (a zip's directory is at its end), up to this: originals included. */
export const IMPORT_BODY_BYTES = 256 * 1024 * 1024
export const ROUTE_BODY_LIMITS: Record<string, number> = {
  '/api/documents/bulk': BULK_BODY_BYTES,
  '/mcp': BULK_BODY_BYTES,
  '/api/documents/files': MAX_FILE_BYTES + 64 * 1024,
  '/api/account/import': IMPORT_BODY_BYTES,
}

/** Routes that also take a bare zip (`application/zip`), read as the multipart field `file` would be. */
export const ZIP_BODY_ROUTES = new Set(['/api/account/import'])

/** The body limit of the request's route: its own if it has one, else `fallback`. */
export const bodyLimitFor = (request: Request, fallback: number): number => ROUTE_BODY_LIMITS[new URL(request.url).pathname] ?? fallback
