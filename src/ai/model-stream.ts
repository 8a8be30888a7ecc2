// The one loop that reads a model's streamed answer, for every streaming route (ask, the agent, /v1): text
// citation-checked step by step, tool steps as they happen, how the model finished and what it used. A client
// that leaves stops it (the call's abortSignal, which sseResponse fires on a disconnect) and it reports nothing;
// a failure — a provider error, a stream that breaks while read, or one the provider cut ("interrupted") — is
// thrown as one StreamError, after the first words too, so the route ends its stream with its error event.
import { streamText } from 'ai'
import { StreamError } from '../http/sse'
import { CitationFilter } from './grounding'

/** The provider's stream ended with no finish: the answer is cut, and must be reported as such. */
export const INTERRUPTED = "the model's stream ended before the answer was complete"

export const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 300)

export type ModelCall = Omit<Parameters<typeof streamText>[0], 'onError' | 'abortSignal'> & { abortSignal: AbortSignal }

export interface StreamSink {
  /** A piece of the answer, its citation markers checked (never empty). */
  text(delta: string): void
  toolCall?(call: { id: string; name: string; input: unknown }): void
  toolResult?(result: { name: string; output: unknown }): void
  toolError?(failure: { name: string; error: unknown }): void
}

export interface StreamRules {
  /** How many sources the text may cite, read as each model step starts (the agent's tools find sources between
   * steps); null passes the text through as written (the caller's JSON). */
  citable: (() => number) | null
  /** What the client reads before the provider's reason when the model fails: "<failed>: <reason>". */
  failed: string
}

export interface StreamEnd {
  /** The model's text as it wrote it, markers and all. */
  raw: string
  finishReason: string
  usage: { input: number; output: number }
}

/** Streams `call` into `sink`; resolves with how it ended, or null when the client left (nothing more to say). */
export async function streamModel(call: ModelCall, rules: StreamRules, sink: StreamSink): Promise<StreamEnd | null> {
  const signal = call.abortSignal
  let failure: unknown = null
  const result = streamText({ ...call, onError: ({ error }) => void (failure = error) } as Parameters<typeof streamText>[0])
  const end: StreamEnd = { raw: '', finishReason: 'stop', usage: { input: 0, output: 0 } }
  let filter = new CitationFilter(0)
  const say = (text: string) => {
    if (text) sink.text(text)
  }
  try {
    for await (const part of result.stream) {
      switch (part.type) {
        case 'start-step':
          // Markers held back at the end of a step are settled before the next step's sources count.
          if (rules.citable) {
            say(filter.flush())
            filter = new CitationFilter(rules.citable())
          }
          break
        case 'text-delta':
          end.raw += part.text
          // The filter only holds back a marker split across deltas.
          say(rules.citable ? filter.push(part.text) : part.text)
          break
        case 'tool-call':
          sink.toolCall?.({ id: part.toolCallId, name: part.toolName, input: part.input })
          break
        case 'tool-result':
          sink.toolResult?.({ name: part.toolName, output: part.output })
          break
        case 'tool-error':
          sink.toolError?.({ name: part.toolName, error: part.error })
          break
        case 'finish':
          if (part.finishReason === 'interrupted') failure = new Error(INTERRUPTED)
          end.finishReason = part.finishReason
          end.usage = { input: part.totalUsage.inputTokens ?? 0, output: part.totalUsage.outputTokens ?? 0 }
          break
        case 'error':
          failure = part.error
          break
      }
    }
  } catch (error) {
    // A stream that breaks while being read: the client must hear it, not see a cut answer.
    failure = error
  }
  if (signal.aborted) return null
  if (failure) throw new StreamError(`${rules.failed}: ${messageOf(failure)}`, { cause: failure, code: 'provider_error' })
  if (rules.citable) say(filter.flush())
  return end
}
