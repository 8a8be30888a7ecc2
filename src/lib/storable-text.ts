// Text that did not come through the edge (a provider's pages, a model's answer) made storable: PostgreSQL
// refuses NUL in text and JSON, and an unpaired surrogate is not Unicode. Requests are refused instead
// (src/http/input-guard.ts); content we fetched or generated ourselves is cleaned, so one odd character
// never fails a whole sync or loses an answer.
export function storableText(text: string): string {
  return text.replaceAll('\u0000', '').toWellFormed()
}
