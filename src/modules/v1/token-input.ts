// /v1/embeddings' token-id input: OpenAI's clients may send cl100k_base token ids instead of text (LangChain
// Python's OpenAIEmbeddings does by default, tokenized with tiktoken), and the ids are decoded back to the text
// they stand for, which is what service-embed embeds. Only cl100k_base: ids alone cannot say which encoding
// made them, and cl100k_base is what those clients use for OpenAI's embedding models and any model id they
// do not know (service-embed included); o200k_base is a chat models' encoding.
import type { TiktokenBPE } from 'js-tiktoken/lite'
import { badRequest } from '../../http/errors'

export const TOKEN_ENCODING = 'cl100k_base'
/** Tokens in one input at most: OpenAI's embedding window (LangChain cuts longer texts into 8,191-token pieces). */
export const MAX_INPUT_TOKENS = 8192
/** Tokens in one request at most, summed over its inputs: OpenAI's own limit, by which LangChain groups its requests. */
export const MAX_REQUEST_TOKENS = 300_000

/** Token ids: one input (an array of ids) or several (an array of such arrays). */
export type TokenInput = number[] | number[][]

export const isTokenInput = (input: string | string[] | TokenInput): input is TokenInput =>
  Array.isArray(input) && typeof input[0] !== 'string'

let table: Promise<(Uint8Array | undefined)[]> | null = null

/**
 * The bytes of every cl100k_base id, special tokens included (holes where the encoding has no id), built on
 * first use from the ranks js-tiktoken ships. Its Tiktoken class is not used to decode: it also builds the
 * encoder's tables (1.5 s on the event loop, against 0.1 s for this one) and skips an unknown id silently, where
 * a caller must hear which id is wrong.
 */
function decodingTable() {
  table ??= import('js-tiktoken/ranks/cl100k_base').then(({ default: ranks }: { default: TiktokenBPE }) => {
    const bytes: (Uint8Array | undefined)[] = []
    // Each line is `<name> <first id> <token in base64>…`, the tokens having consecutive ids from the first.
    for (const line of ranks.bpe_ranks.split('\n')) {
      const [, first, ...tokens] = line.split(' ')
      if (first === undefined) continue
      tokens.forEach((token, i) => {
        bytes[Number(first) + i] = Buffer.from(token, 'base64')
      })
    }
    for (const [text, id] of Object.entries(ranks.special_tokens)) bytes[id] = Buffer.from(text)
    return bytes
  })
  return table
}

/**
 * The text each input's ids stand for, and how many ids came. A 400 names the first id cl100k_base lacks by
 * its place in the request (`input[1][37]`, or `input[37]` for a single array).
 */
export async function decodeTokenInput(input: TokenInput): Promise<{ texts: string[]; tokens: number }> {
  const single = typeof input[0] === 'number'
  const arrays = single ? [input as number[]] : (input as number[][])
  const tokens = arrays.reduce((n, ids) => n + ids.length, 0)
  if (tokens > MAX_REQUEST_TOKENS) throw badRequest(`input: ${tokens} tokens in all; at most ${MAX_REQUEST_TOKENS} in one request`)
  const bytes = await decodingTable()
  // A token can be part of a character: decoded per input, so only an input cut mid-character gets U+FFFD.
  const utf8 = new TextDecoder('utf-8', { ignoreBOM: true })
  const texts = arrays.map((ids, i) => {
    const parts = ids.map((id, j) => {
      const part = Number.isInteger(id) ? bytes[id] : undefined
      if (!part) throw badRequest(`${single ? `input[${j}]` : `input[${i}][${j}]`}: token id ${id} is not in ${TOKEN_ENCODING}`)
      return part
    })
    return utf8.decode(Buffer.concat(parts))
  })
  return { texts, tokens }
}
