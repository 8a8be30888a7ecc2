// A document as its page shows it (GET /api/documents/{id}): shared by the page and its edit and details panes.
import type { paths } from '../api/schema'

export type Doc = paths['/api/documents/{id}']['get']['responses']['200']['content']['application/json']
