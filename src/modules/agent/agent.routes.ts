// POST /api/agent/chat: the tool-using agent as server-sent events — `tool`s as they happen, `delta`s, then
// `sources` and `saved` (or `error`).
import { Elysia } from 'elysia'
import { runAgent } from '../../ai/agent'
import type { Deps } from '../../deps'
import { authPlugin } from '../../http/auth'
import { enforceRateLimit } from '../../http/rate-limit'
import { errors } from '../../http/schemas'
import { sseResponse } from '../../http/sse'
import { errorEvent, type AnswerEvent } from '../ask/ask.service'
import { AgentChatBody, EventStream } from '../conversations/conversations.schemas'
import { openTurn } from '../conversations/conversations.service'

export function agentRoutes(deps: Deps) {
  return new Elysia({ prefix: '/api' }).use(authPlugin(deps)).post(
    '/agent/chat',
    async ({ request, user, principal, body, set }) => {
      await enforceRateLimit(deps, principal, 'ask_per_min', set.headers)
      const turn = await openTurn(deps, user, body)
      return sseResponse<AnswerEvent>(request, deps.log, (send, signal) => runAgent(deps, user, body.message, turn, send, signal), {
        headers: set.headers,
        failure: errorEvent,
      })
    },
    {
      auth: true,
      body: AgentChatBody,
      response: { 200: EventStream, ...errors(400, 401, 404, 429) },
      detail: {
        tags: ['agent'],
        summary: 'Agent chat: a tool-using agent over your memory (SSE: tool…, delta…, sources, saved; error on failure)',
      },
    },
  )
}
