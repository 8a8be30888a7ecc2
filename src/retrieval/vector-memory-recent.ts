// The vectors this process wrote since a user's in-memory copy began loading: what the embedding worker notes as
// it commits each document. Laid over the copy (which may be stale or mixed — an embedding backlog moves the
// versions with every document), they let link suggestions rank every embedded document of the user in memory
// while a backlog drains, instead of waiting for a current copy or scanning in SQL.

export interface NotedDocument {
  workspaceId: string
  /** Its chunks' vectors and their squared norms (zero and NaN vectors are not kept: they compare with nothing). */
  vectors: Float32Array[]
  norms: number[]
  /** performance.now() when noted: a copy whose load began later already holds it. */
  at: number
}

export class RecentVectors {
  readonly documents = new Map<string, NotedDocument>()
  chunks = 0

  constructor(readonly model: string) {}

  note(documentId: string, workspaceId: string, vectors: (number[] | null)[]): void {
    this.drop(documentId)
    const kept: Float32Array[] = []
    const norms: number[] = []
    for (const v of vectors) {
      if (!v) continue
      const f = Float32Array.from(v)
      let norm = 0
      for (const x of f) norm += x * x
      if (norm > 0 && Number.isFinite(norm)) kept.push(f), norms.push(norm)
    }
    this.documents.set(documentId, { workspaceId, vectors: kept, norms, at: performance.now() })
    this.chunks += kept.length
  }

  /** Forgets what was noted before `since` (a copy loaded from then on holds it). */
  trim(since: number): void {
    for (const [id, doc] of this.documents) if (doc.at < since) this.drop(id)
  }

  private drop(documentId: string): void {
    const old = this.documents.get(documentId)
    if (old) this.chunks -= old.vectors.length
    this.documents.delete(documentId)
  }

  /**
   * The noted documents of `workspaceId` (other than `exclude`) whose best chunk-to-chunk cosine with any of
   * `queries` reaches `atLeast`, as pgvector computes it (dot / sqrt(|a|²|b|²)).
   */
  neighbours(queries: Float32Array[], workspaceId: string, exclude: string, atLeast: number): { document_id: string; score: number }[] {
    const found: { document_id: string; score: number }[] = []
    const usable = queries.map((q) => ({ q, qq: q.reduce((s, x) => s + x * x, 0) })).filter(({ qq }) => qq > 0 && Number.isFinite(qq))
    for (const [id, doc] of this.documents) {
      if (id === exclude || doc.workspaceId !== workspaceId) continue
      let best = -Infinity
      for (const { q, qq } of usable)
        doc.vectors.forEach((v, c) => {
          if (v.length !== q.length) return
          let dot = 0
          for (let i = 0; i < v.length; i++) dot += q[i]! * v[i]!
          best = Math.max(best, Math.max(-1, Math.min(1, dot / Math.sqrt(qq * doc.norms[c]!))))
        })
      if (best >= atLeast) found.push({ document_id: id, score: best })
    }
    return found
  }
}
