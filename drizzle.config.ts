// drizzle-kit: generates SQL migrations from db/schema into db/migrations (committed, never hand-edited).
import { defineConfig } from 'drizzle-kit'

export default defineConfig({
  dialect: 'postgresql',
  schema: './db/schema/index.ts',
  out: './db/migrations',
})
