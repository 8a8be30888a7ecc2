// A client that compresses its request body (Content-Encoding: gzip, br, deflate…) is told 415 with what to
// do, not 400 "not valid JSON" — the server decodes no request coding. Identity is the body as it is.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { BASE, createTestApp, type TestApp, type TestUser } from '../harness'

let t: TestApp
let u: TestUser
beforeAll(async () => {
  t = await createTestApp()
  u = await t.signUp()
})
afterAll(() => t.close())

const DOCUMENT = JSON.stringify({ body: 'Backups run nightly at two and are kept for 35 days.' })

async function send(path: string, encoding: string, body: BodyInit, method = 'POST') {
  const res = await t.app.handle(
    new Request(BASE + path, {
      method,
      headers: { authorization: `Bearer ${u.key}`, 'content-type': 'application/json', 'content-encoding': encoding },
      body,
    }),
  )
  return { status: res.status, body: await res.json() }
}

describe('a compressed request body', () => {
  test('gzip: 415 naming the coding and what to do instead', async () => {
    expect(await send('/api/documents', 'gzip', Bun.gzipSync(DOCUMENT))).toEqual({
      status: 415,
      body: { error: 'Content-Encoding gzip is not supported: send the body uncompressed', code: 'unsupported_media_type' },
    })
  })

  test.each([
    ['br', 'br'],
    ['deflate', 'deflate'],
    ['zstd', 'zstd'],
    ['GZIP', 'GZIP'],
    ['gzip, identity', 'gzip'],
    ['identity, br', 'br'],
  ])('Content-Encoding: %s is 415 too', async (header, named) => {
    const res = await send('/api/documents', header, Bun.deflateSync(DOCUMENT))
    expect(res).toEqual({
      status: 415,
      body: { error: `Content-Encoding ${named} is not supported: send the body uncompressed`, code: 'unsupported_media_type' },
    })
  })

  test("on /v1 the 415 comes in OpenAI's error shape", async () => {
    const res = await send('/v1/embeddings', 'gzip', Bun.gzipSync(JSON.stringify({ model: 'any', input: 'hello' })))
    expect(res).toEqual({
      status: 415,
      body: {
        error: {
          message: 'Content-Encoding gzip is not supported: send the body uncompressed',
          type: 'invalid_request_error',
          param: null,
          code: 'unsupported_media_type',
        },
      },
    })
  })

  test('Content-Encoding: identity is the body as it is: the document is created', async () => {
    const res = await send('/api/documents', 'identity', DOCUMENT)
    expect(res.status).toBe(201)
    expect(res.body.body).toBe(JSON.parse(DOCUMENT).body)
  })
})
