// Request and response examples of the main operations, as the explorer shows them and generators copy them
// into docs. Spectral's oas3-valid-media-example checks each against its schema (test/e2e/openapi-lint).

const ID = '3f0c7a52-8d6e-4b8e-9a51-2c1f4e7b9d10'
const WORKSPACE = '7b1e2d44-5c3a-4f60-8e21-9d0b6a3c5f87'
const AT = '2026-11-24T09:30:00.000Z'

const summary = {
  id: ID,
  workspace_id: WORKSPACE,
  title: 'Harbour notes',
  excerpt: 'At spring tide boats moor on the east pier.',
  tags: ['harbour'],
  kind: 'note',
  status: 'active',
  source: 'api',
  source_ref: null,
  url: null,
  pinned: false,
  rating: 0,
  index_status: 'indexed',
  size_bytes: 84,
  occurred_at: AT,
  thread_id: null,
  position: null,
  speaker: null,
  created_at: AT,
  updated_at: AT,
}

const THREAD = 'c2d9e4f1-6a7b-4c8d-9e0f-1a2b3c4d5e6f'
const said = (n: number) => `2026-11-24T09:${30 + n}:00.000Z`
/** A thread's message as search shows it: who said it, when, and the messages said around it. */
const message = {
  ...summary,
  id: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d',
  title: 'Ines · 24 November 2026, 09:31',
  excerpt: 'Yes, on the east pier at spring tide.',
  kind: 'message',
  occurred_at: said(1),
  thread_id: THREAD,
  position: 1,
  speaker: 'Ines',
}
const neighbour = (id: string, n: number, speaker: string, excerpt: string) => ({ id, speaker, occurred_at: said(n), excerpt })

const conversation = { id: ID, name: 'Where do boats moor at spring tide?', workspace_id: null, created_at: AT, updated_at: AT }
const source = { index: 1, document_id: ID, title: 'Harbour notes', url: null, excerpt: 'At spring tide boats moor on the east pier.' }

/** "METHOD /path" → the request body's example, examples of some answers by status, and one event of a 200 stream. */
export const EXAMPLES: Record<string, { request?: unknown; responses?: Record<string, unknown>; event?: unknown }> = {
  'POST /api/auth/sign-up': {
    request: { email: 'ada@example.com', password: 'correct horse battery', name: 'Ada' },
    responses: {
      201: { user: { id: ID, email: 'ada@example.com', name: 'Ada', plan: 'free', avatar_url: null, created_at: AT } },
      409: { error: 'an account with this email already exists', code: 'conflict' },
    },
  },
  'POST /api/keys': {
    request: { label: 'laptop', scopes: ['read', 'write'] },
    responses: {
      201: {
        id: ID,
        prefix: 'svc_AbCd',
        label: 'laptop',
        tier: 'free',
        created_at: AT,
        last_used_at: null,
        kind: 'api_key',
        client_name: null,
        scopes: ['read', 'write'],
        parent_id: null,
        key: 'svc_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd',
      },
    },
  },
  'POST /api/documents': {
    request: { title: 'Harbour notes', body: 'At spring tide boats moor on the east pier.', tags: ['harbour'], kind: 'note' },
    responses: {
      201: { ...summary, body: 'At spring tide boats moor on the east pier.', metadata: {}, deduplicated: false },
      400: { error: 'body must not be empty', code: 'invalid_request' },
    },
  },
  'GET /api/search': {
    responses: {
      200: {
        query: 'spring tide',
        mode: 'hybrid',
        matched: 'all',
        took_ms: 12.5,
        results: [
          {
            document: summary,
            score: 0.82,
            snippet: 'At **spring tide** boats moor on the east pier.',
            signals: { keyword_rank: 1, keyword_score: 2.31, semantic_rank: 1, semantic_score: 0.74, matched_terms: 2, boost: 1 },
          },
          {
            document: message,
            score: 0.61,
            snippet: 'Yes, on the east pier at **spring tide**.',
            context: {
              before: [neighbour('b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e', 0, 'Tom', 'Do the boats still moor by the harbour wall?')],
              after: [neighbour('c3d4e5f6-a7b8-4c9d-8e1f-2a3b4c5d6e7f', 2, 'Tom', 'Thanks, I will tell the skipper.')],
            },
            signals: { keyword_rank: 2, keyword_score: 1.12, semantic_rank: 3, semantic_score: 0.52, matched_terms: 2, boost: 1 },
          },
        ],
      },
      429: { error: 'rate limit: 30 searches a minute on the free plan; retry in 12 s', code: 'rate_limited' },
    },
  },
  'POST /api/ask': {
    request: { question: 'Where do boats moor at spring tide?' },
    responses: { 200: { answer: 'On the east pier [1].', sources: [source], conversation } },
    event: { type: 'delta', text: 'On the east pier [1].' },
  },
  'POST /api/agent/chat': {
    request: { message: 'What did we decide about the harbour?' },
    responses: {
      200: {
        answer: 'Boats moor on the east pier at spring tide [1].',
        sources: [source],
        conversation: { ...conversation, name: 'What did we decide about the harbour?' },
        tools: [
          { name: 'search', status: 'call', detail: { query: 'harbour decision' } },
          { name: 'search', status: 'result', detail: { results: 1 } },
        ],
      },
    },
    event: { type: 'tool', tool: { name: 'search', status: 'call', detail: { query: 'harbour decision' } } },
  },
  'POST /v1/chat/completions': {
    request: { model: 'service-rag', messages: [{ role: 'user', content: 'Where do boats moor at spring tide?' }], stream: false },
  },
  'POST /v1/completions': {
    request: { model: 'service-rag', prompt: 'Where do boats moor at spring tide?', max_tokens: 200 },
  },
  'POST /v1/responses': {
    request: { model: 'service-rag', input: 'Where do boats moor at spring tide?', instructions: 'Answer in one sentence.' },
  },
  'POST /v1/embeddings': {
    request: { model: 'service-embed', input: ['spring tide', 'east pier'] },
  },
}

/** Sets `example` on the request body and the listed answers of `op`, on each media type they have. */
export function addExamples(key: string, op: Record<string, any>): void {
  const examples = EXAMPLES[key]
  if (!examples) return
  // An event stream's example is one event (`event`), not the JSON answer beside it.
  const set = (content: Record<string, { example?: unknown }> | undefined, example: unknown) => {
    for (const [type, media] of Object.entries(content ?? {}))
      if (type !== 'text/event-stream' || examples.event === undefined) media.example = example
  }
  if (examples.request !== undefined) set(op.requestBody?.content, examples.request)
  for (const [status, example] of Object.entries(examples.responses ?? {})) {
    const content = op.responses?.[status]?.content
    if (!content) throw new Error(`${key}: an example for ${status}, which it does not answer`)
    set(content, example)
  }
  const stream = op.responses?.['200']?.content?.['text/event-stream']
  if (examples.event !== undefined) {
    if (!stream) throw new Error(`${key}: an event example, but its 200 is no event stream`)
    stream.example = examples.event
  }
}
