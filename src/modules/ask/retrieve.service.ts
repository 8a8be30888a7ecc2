// Sources for a grounded answer: the caller's best documents for the question (the same hybrid search as
// GET /api/search, so filters, exclusions and boosts are the same), each with its best-matching passage; a thread's
// message quoted as "<speaker>, <date>: <text>" with its neighbours (grounding.ts shows them to the model).
import { quoteMessage, type Source } from '../../ai/grounding'
import type { Deps } from '../../deps'
import { analyzeQuery } from '../../retrieval/keyword'
import { locationField } from '../../retrieval/file-locations'
import { bestPassages } from '../../retrieval/passages'
import type { SessionUser } from '../auth/sessions.service'
import { searchDocuments } from '../search/search.service'

/** Sources an answer is given: enough to cover a question, few enough to keep the prompt small. */
export const SOURCES_PER_ANSWER = 5

export async function retrieveSources(
  deps: Deps,
  user: SessionUser,
  query: string,
  options: { workspace_id?: string | null; limit?: number; firstIndex?: number } = {},
): Promise<Source[]> {
  const found = await searchDocuments(deps, user, {
    q: query.slice(0, 2000),
    limit: options.limit ?? SOURCES_PER_ANSWER,
    workspace_id: options.workspace_id ?? undefined,
  })
  const ids = found.results.map((r) => r.document.id)
  const passages = await bestPassages(deps.db, user.id, ids, await analyzeQuery(deps.db, query.slice(0, 2000)))
  const first = options.firstIndex ?? 1
  return found.results.map((r, i) => {
    const source = {
      index: first + i,
      document_id: r.document.id,
      title: r.document.title,
      url: r.document.url,
      excerpt: passages.get(r.document.id)?.text ?? r.snippet,
      // An uploaded file's passage says where it was: "p. 14".
      ...locationField(passages.get(r.document.id)?.location),
    }
    if (!r.context) return source
    // A thread's message: quoted with who said it and when, and the messages said around it.
    const { speaker, occurred_at } = r.document
    const said = source.excerpt.replace(/\s+/g, ' ').trim()
    return { ...source, excerpt: quoteMessage(speaker, occurred_at, said), speaker, occurred_at, context: r.context }
  })
}
