// `bun run openapi:generate`: rewrites the generated types — test/e2e/api.gen.ts and the dashboard's
// src/web/client/api/schema.d.ts — from the OpenAPI document of a fresh in-memory app.
import { fileURLToPath } from 'node:url'
import { GENERATED_FILE, loadDocument, renderTypes, WEB_TYPES_FILE } from './codegen'

const source = await renderTypes(await loadDocument())
for (const file of [GENERATED_FILE, WEB_TYPES_FILE]) {
  await Bun.write(file, source)
  console.log(`wrote ${fileURLToPath(file)} (${source.length} characters)`)
}
