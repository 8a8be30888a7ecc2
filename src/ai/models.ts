// The model registry: service-rag (answers) and service-embed (vectors), and what backs each. The only place
// that chooses a chat provider; everything else asks for deps.chat.
import { createOpenAI } from '@ai-sdk/openai'
import type { LanguageModelV4 } from '@ai-sdk/provider'
import type { Config, ServiceModel } from '../config'
import { extractiveModel } from './extractive-model'

export const RAG_MODEL = 'service-rag' satisfies ServiceModel
export const EMBED_MODEL = 'service-embed' satisfies ServiceModel

export interface ChatModel {
  id: typeof RAG_MODEL
  model: LanguageModelV4
  /** What answers: `extractive` (built in) or `openai:<CHAT_MODEL>`. */
  backedBy: string
}

export function loadChatModel(config: Config): ChatModel {
  const { model, openaiBaseUrl, openaiApiKey } = config.chat
  if (!model) return { id: RAG_MODEL, model: extractiveModel(), backedBy: 'extractive' }
  // .chat(): /v1/chat/completions, which Ollama, vLLM and llama.cpp serve (plain provider(id) targets /v1/responses).
  const openai = createOpenAI({ baseURL: openaiBaseUrl ?? undefined, apiKey: openaiApiKey ?? 'unset' })
  return { id: RAG_MODEL, model: openai.chat(model) as LanguageModelV4, backedBy: `openai:${model}` }
}
