// What the end-to-end connector suite needs from each provider's fake: start it, fill it with a realistic
// workspace, and change it upstream (edit, remove, add) the way a person would.
import type { ConnectorFake } from '../../fakes/connector-fake'

/** An upstream item as the service should import it: its title and a phrase only its body contains. */
export interface Expected {
  title: string
  phrase: string
}

export interface ProviderCase<F extends ConnectorFake = ConnectorFake, H = unknown> {
  type: 'confluence' | 'google_drive' | 'notion'
  start(callbackUrl: string): F
  /** A realistic workspace. `imported` is what a sync must bring in; `skipped` how many listed items it must skip. */
  seed(fake: F): { imported: Expected[]; skipped: number; handles: H; config?: Record<string, string[]> }
  edit(fake: F, handles: H): Expected
  remove(fake: F, handles: H): string
  add(fake: F, handles: H): Expected
  /** Does a disconnect reach the provider's revocation endpoint? (Atlassian has none.) */
  revokes: boolean
  /** Requests that fetch an item's content (not the listing): a sync of an unchanged source makes none. */
  isContentRequest(request: ConnectorFake['requests'][number]): boolean
}
