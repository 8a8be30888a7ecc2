// What a chunk's vector is computed from: the document's title, then the chunk. A title is often the best summary
// of its document, and a chunk cut from the middle of a body says little of what the whole is about (BEIR embeds
// "title text" for the same reason); the keyword index counts the title separately and is unaffected. A message is
// read as a transcript: its title (who said it, when), the messages before it (message-context.ts), then its words.
import { type Said, transcriptLines } from '../retrieval/message-context'

export function embeddingText(title: string | null, content: string): string {
  const t = title?.trim()
  return t ? `${t}\n${content}` : content
}

export function messageEmbeddingText(title: string, speaker: string | null, content: string, before: Said[]): string {
  return [title.trim(), ...transcriptLines(before), `${speaker ?? 'someone'}: ${content}`].filter(Boolean).join('\n')
}
