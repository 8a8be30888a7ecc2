// What a chunk's vector is computed from: the document's title, then the chunk, then — for a message — what it
// answers (message-context.ts). A title is often the best summary of its document, and a chunk cut from the middle
// of a body says little of what the whole is about (BEIR embeds "title text" for the same reason); the keyword
// index counts the title separately and is unaffected. The context comes last, so that a model reading a bounded
// number of tokens cuts it, never the chunk.
export function embeddingText(title: string | null, content: string, context = ''): string {
  const t = title?.trim()
  const text = t ? `${t}\n${content}` : content
  return context ? `${text}\n${context}` : text
}
