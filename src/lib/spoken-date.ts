// A date as a reader says it — "8 May 2023", in UTC — where a message is quoted with who said it and when (sources
// put before a model, search results, answers). Messages' titles (threads.model.ts) write their date the same way.
const dateFormat = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' })

export const spokenDate = (at: Date) => dateFormat.format(at)

/** A date spokenDate writes, read back ("8 May 2023"): the words a quote's date is matched by. */
export const SPOKEN_DATE = /\d{1,2} (?:January|February|March|April|May|June|July|August|September|October|November|December) \d{4}/
