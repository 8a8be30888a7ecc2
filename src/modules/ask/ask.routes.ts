// POST /api/ask: a grounded answer as server-sent events — `delta`s, then `sources`, then `saved` — or, for a
// client that asks for JSON (`Accept: application/json` or `stream: false`), the same answer as one object.
import { Elysia } from 'elysia'
import type { Deps } from '../../deps'
import { authPlugin } from '../../http/auth'
import { enforceRateLimit } from '../../http/rate-limit'
import { errors } from '../../http/schemas'
import { collectEvents, prefersJson, type Send, sseResponse } from '../../http/sse'
import { Answer, AskBody } from '../conversations/conversations.schemas'
import { answerOf, errorEvent, type AnswerEvent } from './answer-stream'
import { prepareAsk, streamAnswer } from './ask.service'

export function askRoutes(deps: Deps) {
  return new Elysia({ prefix: '/api' }).use(authPlugin(deps)).post(
    '/ask',
    async ({ request, user, principal, body, set }) => {
      await enforceRateLimit(deps, principal, 'ask_per_min', set.headers)
      const turn = await prepareAsk(deps, user, body)
      const produce = (send: Send<AnswerEvent>, signal: AbortSignal) => streamAnswer(deps, user, body, turn, send, signal)
      // Both answers are Responses (one JSON, one a stream), so the handler has one return type.
      if (prefersJson(request, body.stream)) {
        const { tools: _, ...answer } = answerOf(await collectEvents(request, produce))
        return Response.json(answer, { headers: set.headers as Record<string, string> })
      }
      return sseResponse<AnswerEvent>(request, deps.log, produce, { headers: set.headers, failure: errorEvent })
    },
    {
      auth: true,
      body: AskBody,
      response: { 200: Answer, ...errors(400, 401, 404, 429, 502) },
      detail: {
        tags: ['ask'],
        summary:
          'Ask: a streamed answer grounded in your documents with [n] citations (SSE: delta…, sources, saved; error on failure); with `Accept: application/json` or `stream: false`, the whole answer as one object (502 if the model fails)',
      },
    },
  )
}
