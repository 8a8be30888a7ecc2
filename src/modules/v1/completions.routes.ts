// POST /v1/completions, OpenAI's legacy text completions, mounted under /v1 by v1.routes.ts: rate-limited and
// scoped as chat completions are, each prompt of an array counting as one question.
import { Elysia } from 'elysia'
import type { Deps } from '../../deps'
import { authPlugin } from '../../http/auth'
import { enforceRateLimit } from '../../http/rate-limit'
import { openAiErrors } from '../../http/schemas'
import { sseResponse } from '../../http/sse'
import { errorChunk } from './chat.service'
import { CompletionBody, MAX_PROMPTS, TextCompletion } from './completions.schemas'
import { complete, prepareCompletion, promptsOf, streamCompletion } from './completions.service'

export function completionsRoutes(deps: Deps) {
  return new Elysia().use(authPlugin(deps)).post(
    '/completions',
    async ({ request, user, principal, body, set }) => {
      for (const _ of promptsOf(body)) await enforceRateLimit(deps, principal, 'ask_per_min', set.headers, true)
      const prepared = await prepareCompletion(deps, user, body)
      if (!body.stream)
        return Response.json(await complete(deps, user, prepared, request.signal), { headers: set.headers as Record<string, string> })
      const includeUsage = body.stream_options?.include_usage === true
      return sseResponse<object | '[DONE]'>(
        request,
        deps.log,
        (send, signal) => streamCompletion(deps, user, prepared, includeUsage, send, signal),
        {
          headers: set.headers,
          encode: (e) => (e === '[DONE]' ? 'data: [DONE]\n\n' : `data: ${JSON.stringify(e)}\n\n`),
          failure: errorChunk,
        },
      )
    },
    {
      auth: true,
      body: CompletionBody,
      response: { 200: TextCompletion, ...openAiErrors(400, 401, 404, 429, 502) },
      detail: {
        tags: ['openai-compatible'],
        summary: `Legacy text completions in OpenAI's format (LlamaIndex OpenAILike, older clients): each prompt (a string, or up to ${MAX_PROMPTS} in an array, one choice each) is a question answered from your documents as chat completions answer it, with citations on each choice; streaming or not; n and best_of 1 only, no logprobs, suffix or token arrays; rate-limited per key and plan, one request per prompt`,
      },
    },
  )
}
