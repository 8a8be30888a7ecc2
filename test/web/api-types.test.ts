// The dashboard's API types (src/web/client/api/schema.d.ts) are exactly what the app's own /openapi/json
// generates: a route schema changed without regenerating fails here, so the UI and the API cannot drift.
import { expect, test } from 'bun:test'
import { loadDocument, renderTypes, WEB_TYPES_FILE } from '../e2e/codegen'

test('the committed dashboard types are those of the live OpenAPI document (else run `bun run openapi:generate`)', async () => {
  const expected = await renderTypes(await loadDocument())
  const committed = await Bun.file(WEB_TYPES_FILE).text()
  if (committed !== expected)
    throw new Error(
      'src/web/client/api/schema.d.ts is out of date with /openapi/json: run `bun run openapi:generate` and commit the result',
    )
  expect(committed).toContain('"/api/documents/{id}"')
})
