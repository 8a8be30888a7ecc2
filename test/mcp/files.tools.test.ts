// An agent hands over a file through MCP (Streamable HTTP, the SDK's Client against a listening server):
// upload_file takes it as base64, the document is processing until the extract-file job reads it, and then
// get_document shows its text and search finds it with the page it was on.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { drainJobs } from '../../src/jobs/worker'
import type { TestUser } from '../harness'
import { makePdf } from '../files/fixtures'
import { call, errorText, httpClient, startMcpServer, structured, type McpTestServer } from './server'

let s: McpTestServer
let user: TestUser
let client: Client

beforeAll(async () => {
  s = await startMcpServer()
  user = await s.t.signUp()
  client = await httpClient(s.url, user.key)
})
afterAll(async () => {
  await client?.close()
  await s.stop()
})

describe('a file through MCP', () => {
  test('upload_file stores a PDF; once read, search finds the passage with its page', async () => {
    const pdf = await makePdf(2)
    const sent = structured(
      await call(client, 'upload_file', {
        filename: 'minutes.pdf',
        content_base64: Buffer.from(pdf).toString('base64'),
        tags: ['meeting'],
      }),
    )
    expect(sent).toMatchObject({
      title: 'minutes',
      tags: ['meeting'],
      index_status: 'processing',
      deduplicated: false,
      file: { name: 'minutes.pdf', format: 'pdf', size_bytes: pdf.byteLength, status: 'processing', error: null },
    })
    expect(await drainJobs(s.t.deps, 'mcp-files', ['extract-file'])).toBe(1)
    const doc = structured(await call(client, 'get_document', { id: sent.id }))
    expect(doc.body).toContain('Line 2 of page 2')
    const found = await s.t.json('GET', `/api/search?mode=keyword&q=${encodeURIComponent('"line 2 of page 2"')}`, { key: user.key })
    expect(found.body.results[0]).toMatchObject({ document: { id: sent.id }, location: { page: 2, label: 'p. 2' } })
  })

  test('content that is not base64, or bytes that are not what the name says, is a tool error saying so', async () => {
    expect(errorText(await call(client, 'upload_file', { filename: 'a.pdf', content_base64: 'not base64!' }))).toContain('not base64')
    const pdf = Buffer.from(await makePdf(1)).toString('base64')
    expect(errorText(await call(client, 'upload_file', { filename: 'a.docx', content_base64: pdf }))).toContain('not a DOCX file')
  })
})
