// /api/account: deleting the account, and the whole account as one zip, out and back in (/export, /import; the
// format: docs/export-format.md).
import { Elysia, t } from 'elysia'
import type { Deps } from '../../deps'
import { authPlugin } from '../../http/auth'
import { errors, NoContent } from '../../http/schemas'
import { sessionCookie } from '../auth/sessions.service'
import { DeleteAccountBody, ImportBody, ImportResult } from './account.schemas'
import { deleteAccount } from './account.service'
import { exportAccount } from './export.service'
import { importAccount } from './import.service'

const tags = ['account']

export function accountRoutes(deps: Deps) {
  return new Elysia({ prefix: '/api/account' })
    .use(authPlugin(deps))
    .delete(
      '',
      async ({ user, set }) => {
        await deleteAccount(deps, user)
        set.headers['set-cookie'] = sessionCookie(deps, '', null)
        set.status = 204
      },
      {
        auth: true,
        body: DeleteAccountBody,
        response: { 204: NoContent, ...errors(400, 401) },
        detail: { tags, summary: 'Delete the account and every row of its data; body { "confirm": "DELETE" }' },
      },
    )
    .get(
      '/export',
      ({ user }) => {
        const { stream, filename } = exportAccount(deps, user)
        return new Response(stream, {
          headers: {
            'content-type': 'application/zip',
            'content-disposition': `attachment; filename="${filename}"`,
            'cache-control': 'no-store',
            'x-content-type-options': 'nosniff',
          },
        })
      },
      {
        auth: true,
        response: { 200: t.Unknown({ description: 'The zip archive, streamed' }), ...errors(401) },
        detail: {
          tags,
          summary:
            'The whole account as one zip, streamed as it is read: workspaces, documents and memories of every status (with their ' +
            'Markdown copies), threads and their messages, links, settings (the format: docs/export-format.md). Keys, sessions, ' +
            'billing and connectors are not in it',
        },
      },
    )
    .post('/import', async ({ principal, body }) => importAccount(deps, principal, new Uint8Array(await body.file.arrayBuffer())), {
      auth: true,
      body: ImportBody,
      type: 'multipart/form-data',
      response: { 200: ImportResult, ...errors(400, 401, 402, 413, 415) },
      detail: {
        tags,
        summary:
          'Import a zip made by the export — or a zipped Markdown folder (an Obsidian vault) — into this account: checked whole first ' +
          '(400 naming the first bad entry; 402 past a plan cap), then written in one transaction, with new ids; duplicates of what ' +
          'the account holds are skipped. An API key imports active memories as drafts',
      },
    })
}
