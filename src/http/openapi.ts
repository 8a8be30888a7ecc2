// OpenAPI 3.1 at /openapi/json and the Swagger UI explorer at /openapi, its assets served from
// node_modules so the explorer works with no internet.
import { openapi } from '@elysiajs/openapi'
import { Elysia } from 'elysia'
import type { Config } from '../config'

const ASSETS: Record<string, string> = {
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
}

export function openapiDocs(config: Config) {
  return new Elysia({ name: 'openapi' })
    .use(
      openapi({
        path: '/openapi',
        provider: 'swagger-ui',
        swagger: { cdn: '/openapi/assets/swagger-ui-bundle.js', theme: '/openapi/assets/swagger-ui.css', persistAuthorization: true },
        documentation: {
          info: { title: 'Knowledge Memory Service', version: config.version, description: 'Documents and memories in workspaces, hybrid search, grounded answers, agents, connectors.' },
          servers: [{ url: config.baseUrl }],
          components: {
            securitySchemes: {
              bearer: { type: 'http', scheme: 'bearer', description: 'An API key: `svc_` + 40 characters (POST /api/keys)' },
              session: { type: 'apiKey', in: 'cookie', name: 'session', description: 'The dashboard session cookie (POST /api/auth/sign-in)' },
            },
          },
        },
      }),
    )
    .get(
      '/openapi/assets/:file',
      ({ params, status }) => {
        const type = ASSETS[params.file]
        if (!type) return status(404, { error: `no asset ${params.file}` })
        return new Response(Bun.file(Bun.resolveSync(`swagger-ui-dist/${params.file}`, import.meta.dir)), {
          headers: { 'content-type': type, 'cache-control': 'public, max-age=86400' },
        })
      },
      { detail: { hide: true } },
    )
}
