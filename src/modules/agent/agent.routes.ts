// POST /api/agent/chat: the tool-using agent as server-sent events — `tool`s as they happen, `delta`s, then
// `sources` and `saved` (or `error`) — or, for a client that asks for JSON, the same answer and tool steps as one object.
import { Elysia } from 'elysia'
import { runAgent } from './agent.service'
import type { Deps } from '../../deps'
import { authPlugin } from '../../http/auth'
import { enforceRateLimit } from '../../http/rate-limit'
import { errors } from '../../http/schemas'
import { collectEvents, prefersJson, type Send, sseResponse } from '../../http/sse'
import { answerOf, errorEvent, type AnswerEvent } from '../ask/answer-stream'
import { AgentAnswer, AgentChatBody } from '../conversations/conversations.schemas'
import { openTurn } from '../conversations/conversations.service'

export function agentRoutes(deps: Deps) {
  return new Elysia({ prefix: '/api' }).use(authPlugin(deps)).post(
    '/agent/chat',
    async ({ request, user, principal, body, set }) => {
      await enforceRateLimit(deps, principal, 'ask_per_min', set.headers)
      const turn = await openTurn(deps, user, body)
      const produce = (send: Send<AnswerEvent>, signal: AbortSignal) => runAgent(deps, user, body.message, turn, send, signal)
      // Both answers are Responses (one JSON, one a stream), so the handler has one return type.
      if (prefersJson(request, body.stream))
        return Response.json(answerOf(await collectEvents(request, produce)), { headers: set.headers as Record<string, string> })
      return sseResponse<AnswerEvent>(request, deps.log, produce, { headers: set.headers, failure: errorEvent })
    },
    {
      auth: true,
      body: AgentChatBody,
      response: { 200: AgentAnswer, ...errors(400, 401, 404, 429, 502) },
      detail: {
        tags: ['agent'],
        summary:
          'Agent chat: a tool-using agent over your memory (SSE: tool…, delta…, sources, saved; error on failure); with `Accept: application/json` or `stream: false`, the answer and its tool steps as one object (502 if the model fails)',
      },
    },
  )
}
