// What a chunk's vector is computed from: the document's title, then the chunk. A title is often the best
// summary of its document, and a chunk cut from the middle of a body says little of what the whole is about
// (BEIR embeds "title text" for the same reason); the keyword index counts the title separately and is unaffected.
export function embeddingText(title: string | null, content: string): string {
  const t = title?.trim()
  return t ? `${t}\n${content}` : content
}
