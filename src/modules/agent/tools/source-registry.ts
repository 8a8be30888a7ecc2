// The sources an agent run has seen, numbered in the order tools found them, so the answer's [n] markers
// point at the same list the client receives in the `sources` event.
import type { Source } from '../../../ai/grounding'

export class SourceRegistry {
  private readonly byDocument = new Map<string, Source>()

  /** The source for this document, numbered on first sight; a later, longer passage replaces the excerpt. */
  add(source: Omit<Source, 'index'>): Source {
    const known = this.byDocument.get(source.document_id)
    if (known) {
      if ((source.excerpt?.length ?? 0) > (known.excerpt?.length ?? 0)) known.excerpt = source.excerpt
      return known
    }
    const numbered = { ...source, index: this.byDocument.size + 1 }
    this.byDocument.set(source.document_id, numbered)
    return numbered
  }

  get list(): Source[] {
    return [...this.byDocument.values()]
  }
}
