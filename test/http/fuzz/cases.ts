// The reproductions of issue 10 item 4 as data: which field of which operation gets the hostile value, and the
// checks they share (an error naming the field, every score a finite number).
import { expect } from 'bun:test'

export interface Ids {
  workspace: string
  doc: string
  connector: string
}

export interface FieldCase {
  /** "POST /api/documents body.title" — what the test title says. */
  name: string
  method: string
  path: (ids: Ids) => string
  body?: (value: string) => unknown
  /** The name the error must mention. */
  field: string
  /** Sign-up and sign-in are public: no credentials. */
  anonymous?: true
}

const password = 'correct horse battery'

/** A string field of each operation the issue names (sign-up … connectors), or a query parameter (`$` is the value). */
export function stringFieldCases(): FieldCase[] {
  const doc = (extra: (v: string) => object) => (v: string) => ({ title: 'A title', body: 'A body.', ...extra(v) })
  const learning = (extra: (v: string) => object) => (v: string) => ({
    workspace_id: '$WS',
    learnings: [{ kind: 'fact', title: 'A title', body: 'A body.', ...extra(v) }],
  })
  return [
    {
      name: 'POST /api/auth/sign-up body.email',
      method: 'POST',
      path: () => '/api/auth/sign-up',
      body: (v) => ({ email: `a${v}b@example.com`, password }),
      field: 'email',
      anonymous: true,
    },
    {
      name: 'POST /api/auth/sign-up body.password',
      method: 'POST',
      path: () => '/api/auth/sign-up',
      body: (v) => ({ email: 'nul-pw@example.com', password: `correct${v}horse battery` }),
      field: 'password',
      anonymous: true,
    },
    {
      name: 'POST /api/auth/sign-up body.name',
      method: 'POST',
      path: () => '/api/auth/sign-up',
      body: (v) => ({ email: 'nul-name@example.com', password, name: `a${v}b` }),
      field: 'name',
      anonymous: true,
    },
    {
      name: 'POST /api/auth/sign-in body.email',
      method: 'POST',
      path: () => '/api/auth/sign-in',
      body: (v) => ({ email: `a${v}b@example.com`, password }),
      field: 'email',
      anonymous: true,
    },
    {
      name: 'POST /api/auth/sign-in body.password',
      method: 'POST',
      path: () => '/api/auth/sign-in',
      body: (v) => ({ email: 'someone@example.com', password: `x${v}y` }),
      field: 'password',
      anonymous: true,
    },
    { name: 'POST /api/keys body.label', method: 'POST', path: () => '/api/keys', body: (v) => ({ label: `a${v}b` }), field: 'label' },
    {
      name: 'POST /api/workspaces body.name',
      method: 'POST',
      path: () => '/api/workspaces',
      body: (v) => ({ name: `a${v}b` }),
      field: 'name',
    },
    {
      name: 'POST /api/workspaces body.description',
      method: 'POST',
      path: () => '/api/workspaces',
      body: (v) => ({ name: 'Ok', description: `a${v}b` }),
      field: 'description',
    },
    {
      name: 'PATCH /api/workspaces/:id body.name',
      method: 'PATCH',
      path: (i) => `/api/workspaces/${i.workspace}`,
      body: (v) => ({ name: `a${v}b` }),
      field: 'name',
    },
    {
      name: 'POST /api/documents body.title',
      method: 'POST',
      path: () => '/api/documents',
      body: doc((v) => ({ title: `a${v}b` })),
      field: 'title',
    },
    {
      name: 'POST /api/documents body.body',
      method: 'POST',
      path: () => '/api/documents',
      body: doc((v) => ({ body: `a${v}b` })),
      field: 'body',
    },
    {
      name: 'POST /api/documents body.excerpt',
      method: 'POST',
      path: () => '/api/documents',
      body: doc((v) => ({ excerpt: `a${v}b` })),
      field: 'excerpt',
    },
    {
      name: 'POST /api/documents body.tags[0]',
      method: 'POST',
      path: () => '/api/documents',
      body: doc((v) => ({ tags: [`a${v}b`] })),
      field: 'tags',
    },
    {
      name: 'POST /api/documents body.source_ref',
      method: 'POST',
      path: () => '/api/documents',
      body: doc((v) => ({ source_ref: `a${v}b` })),
      field: 'source_ref',
    },
    {
      name: 'POST /api/documents body.url',
      method: 'POST',
      path: () => '/api/documents',
      body: doc((v) => ({ url: `https://example.com/a${v}b` })),
      field: 'url',
    },
    {
      name: 'POST /api/documents body.metadata value',
      method: 'POST',
      path: () => '/api/documents',
      body: doc((v) => ({ metadata: { note: `a${v}b` } })),
      field: 'metadata',
    },
    {
      name: 'POST /api/documents body.metadata key',
      method: 'POST',
      path: () => '/api/documents',
      body: doc((v) => ({ metadata: { [`a${v}b`]: 1 } })),
      field: 'metadata',
    },
    {
      name: 'PATCH /api/documents/:id body.title',
      method: 'PATCH',
      path: (i) => `/api/documents/${i.doc}`,
      body: (v) => ({ title: `a${v}b` }),
      field: 'title',
    },
    {
      name: 'PATCH /api/documents/:id body.body',
      method: 'PATCH',
      path: (i) => `/api/documents/${i.doc}`,
      body: (v) => ({ body: `a${v}b` }),
      field: 'body',
    },
    { name: 'GET /api/documents?tag=', method: 'GET', path: () => '/api/documents?tag=$', field: 'tag' },
    { name: 'GET /api/memories?tag=', method: 'GET', path: () => '/api/memories?tag=$', field: 'tag' },
    { name: 'GET /api/documents/check?url=', method: 'GET', path: () => '/api/documents/check?size_bytes=10&url=$', field: 'url' },
    { name: 'GET /api/search?q=', method: 'GET', path: () => '/api/search?q=quokka$gateway', field: 'q' },
    { name: 'GET /api/search?tag=', method: 'GET', path: () => '/api/search?q=quokka&tag=$', field: 'tag' },
    {
      name: 'POST /api/memories/batch-draft body.learnings[0].title',
      method: 'POST',
      path: () => '/api/memories/batch-draft',
      body: learning((v) => ({ title: `a${v}b` })),
      field: 'learnings[0].title',
    },
    {
      name: 'POST /api/memories/batch-draft body.learnings[0].body',
      method: 'POST',
      path: () => '/api/memories/batch-draft',
      body: learning((v) => ({ body: `a${v}b` })),
      field: 'learnings[0].body',
    },
    {
      name: 'POST /api/memories/batch-draft body.learnings[0].metadata',
      method: 'POST',
      path: () => '/api/memories/batch-draft',
      body: learning((v) => ({ metadata: { topic: `a${v}b` } })),
      field: 'learnings[0].metadata',
    },
    { name: 'PATCH /api/profile body.name', method: 'PATCH', path: () => '/api/profile', body: (v) => ({ name: `a${v}b` }), field: 'name' },
    {
      name: 'POST /api/connectors body.label',
      method: 'POST',
      path: () => '/api/connectors',
      body: (v) => ({ type: 'confluence', label: `a${v}b` }),
      field: 'label',
    },
    {
      name: 'PATCH /api/connectors/:id body.label',
      method: 'PATCH',
      path: (i) => `/api/connectors/${i.connector}`,
      body: (v) => ({ label: `a${v}b` }),
      field: 'label',
    },
    {
      name: 'PATCH /api/connectors/:id body.config.spaces[0]',
      method: 'PATCH',
      path: (i) => `/api/connectors/${i.connector}`,
      body: (v) => ({ config: { spaces: [`a${v}b`] } }),
      field: 'config',
    },
    {
      name: 'POST /api/ask body.question',
      method: 'POST',
      path: () => '/api/ask',
      body: (v) => ({ question: `what is a${v}b?` }),
      field: 'question',
    },
  ]
}

/** The body with `$WS` replaced by the real workspace id. */
export const withIds = (body: unknown, ids: Ids) => JSON.parse(JSON.stringify(body).replaceAll('$WS', ids.workspace))

/** The message of an error body: `{ error }`, or OpenAI's `{ error: { message } }` on /v1. */
export const errorMessageOf = (body: any): string | undefined =>
  typeof body?.error === 'string' ? body.error : typeof body?.error?.message === 'string' ? body.error.message : undefined

export function expectNamedError(res: { status: number; body: any }, statuses: number[], field: string) {
  // One assertion, so a failure shows the status and the whole body.
  const status = statuses.includes(res.status) ? `one of ${statuses}` : res.status
  expect({ status, message: errorMessageOf(res.body), body: res.body }).toMatchObject({
    status: `one of ${statuses}`,
    message: expect.stringContaining(field),
  })
}

/** Every `score` anywhere in a response: NaN would have been serialised as null. */
export function scoresOf(value: unknown, out: unknown[] = []): unknown[] {
  if (Array.isArray(value)) for (const v of value) scoresOf(v, out)
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === 'score') out.push(v)
      else scoresOf(v, out)
    }
  }
  return out
}
