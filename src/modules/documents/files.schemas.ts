// The contract of files: an upload (multipart), the file a document was made from, where a passage was in it.
import { t } from 'elysia'
import { Uuid } from '../../http/schemas'
import { Document, FileInfo, Metadata } from './documents.schemas'

export const FILE_FORMS = 'PDF, DOCX, PPTX, XLSX, CSV, HTML, Markdown or plain text'

export const UploadBody = t.Object({
  file: t.File({ description: `${FILE_FORMS}; read by its bytes, whatever its name says` }),
  workspace_id: t.Optional(Uuid('Defaults to the default workspace of the settings')),
  title: t.Optional(t.String({ minLength: 1, maxLength: 500, description: "Defaults to the file's own title, else its name" })),
  tags: t.Optional(
    t.String({ maxLength: 2000, description: 'Comma-separated, added to the tags the file itself gives (Markdown front matter)' }),
  ),
})

export const UploadedDocument = t.Object(
  { ...Document.properties, metadata: Metadata, file: FileInfo, deduplicated: t.Boolean() },
  { title: 'UploadedDocument' },
)
