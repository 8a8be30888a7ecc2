// `bun run openapi:generate`: rewrites test/e2e/api.gen.ts from the OpenAPI document of a fresh in-memory app.
import { fileURLToPath } from 'node:url'
import { GENERATED_FILE, loadDocument, renderTypes } from './codegen'

const source = await renderTypes(await loadDocument())
await Bun.write(GENERATED_FILE, source)
console.log(`wrote ${fileURLToPath(GENERATED_FILE)} (${source.length} characters)`)
