// Model aliases: the model ids popular OpenAI clients send when none is set (or in their examples) name
// service-rag or service-embed here, so such a client works on its first try. Every /v1 route resolves the
// caller's model through resolveModel, and answers with the real id in its `model` field.
import { EMBED_MODEL, RAG_MODEL } from '../../ai/models'
import type { Config, ServiceModel } from '../../config'
import { AppError } from '../../http/errors'

/**
 * The default aliases, with the client whose default each is. MODEL_ALIASES adds to this table (an entry
 * for one of these ids re-points it); README "Model aliases" shows it.
 */
export const DEFAULT_MODEL_ALIASES: Record<string, ServiceModel> = {
  // LangChain's ChatOpenAI (Python and JS) and LlamaIndex's OpenAI LLM.
  'gpt-3.5-turbo': RAG_MODEL,
  // LangChain's OpenAI (completions) LLM.
  'gpt-3.5-turbo-instruct': RAG_MODEL,
  // The OpenAI Agents SDK's default: gpt-4.1 in its earlier releases, gpt-5.6-luna in 0.20 (JS) and 0.24 (Python).
  'gpt-4.1': RAG_MODEL,
  'gpt-4.1-mini': RAG_MODEL,
  'gpt-5.6-luna': RAG_MODEL,
  // The OpenAI SDKs' and most tutorials' examples; gpt-4o-mini is also LlamaIndex's OpenAIResponses default.
  'gpt-4o': RAG_MODEL,
  'gpt-4o-mini': RAG_MODEL,
  'gpt-4': RAG_MODEL,
  'gpt-4-turbo': RAG_MODEL,
  'gpt-5': RAG_MODEL,
  'gpt-5-mini': RAG_MODEL,
  // LangChain's and LlamaIndex's OpenAIEmbeddings default.
  'text-embedding-ada-002': EMBED_MODEL,
  'text-embedding-3-small': EMBED_MODEL,
  'text-embedding-3-large': EMBED_MODEL,
}

export type ModelKind = 'chat' | 'embed'
const SERVES: Record<ModelKind, ServiceModel> = { chat: RAG_MODEL, embed: EMBED_MODEL }

/** The model an id names, itself or through an alias; null for an id that names none. */
export function modelNamed(config: Pick<Config, 'modelAliases'>, id: string): ServiceModel | null {
  if (id === RAG_MODEL || id === EMBED_MODEL) return id
  return config.modelAliases.get(id) ?? (Object.hasOwn(DEFAULT_MODEL_ALIASES, id) ? DEFAULT_MODEL_ALIASES[id]! : null)
}

/**
 * The real model a request for `requested` is served by, for a route serving `kind`: OpenAI's 404 otherwise —
 * an id that names no model, or names the other one (an embedding alias on chat), as service-embed on chat.
 */
export function resolveModel(config: Pick<Config, 'modelAliases'>, requested: string, kind: ModelKind): ServiceModel {
  const model = modelNamed(config, requested)
  if (model !== SERVES[kind]) throw new AppError(404, `model ${requested} does not exist; use ${SERVES[kind]}`)
  return model
}

/** The ids a route's model field is documented with: its model's own and its default aliases. */
export const documentedIds = (model: ServiceModel) => [
  model,
  ...Object.keys(DEFAULT_MODEL_ALIASES).filter((id) => DEFAULT_MODEL_ALIASES[id] === model),
]
