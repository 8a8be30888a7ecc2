// POST /api/ask: a grounded answer as server-sent events — `delta`s, then `sources`, then `saved`.
import { Elysia } from 'elysia'
import type { Deps } from '../../deps'
import { authPlugin } from '../../http/auth'
import { enforceRateLimit } from '../../http/rate-limit'
import { errors } from '../../http/schemas'
import { sseResponse } from '../../http/sse'
import { AskBody, EventStream } from '../conversations/conversations.schemas'
import { errorEvent, prepareAsk, streamAnswer, type AnswerEvent } from './ask.service'

export function askRoutes(deps: Deps) {
  return new Elysia({ prefix: '/api' }).use(authPlugin(deps)).post(
    '/ask',
    async ({ request, user, principal, body, set }) => {
      await enforceRateLimit(deps, principal, 'ask_per_min', set.headers)
      const turn = await prepareAsk(deps, user, body)
      return sseResponse<AnswerEvent>(request, deps.log, (send, signal) => streamAnswer(deps, user, body, turn, send, signal), {
        headers: set.headers,
        failure: errorEvent,
      })
    },
    {
      auth: true,
      body: AskBody,
      response: { 200: EventStream, ...errors(400, 401, 404, 429) },
      detail: {
        tags: ['ask'],
        summary: 'Ask: a streamed answer grounded in your documents with [n] citations (SSE: delta…, sources, saved; error on failure)',
      },
    },
  )
}
