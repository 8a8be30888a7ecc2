// A screen not built yet: says so plainly, with what it will do and what works today.
import { PageTitle } from '../ui/page'
import { Link } from '../ui/link'
import type { Screen } from './nav'

export function Placeholder({ screen }: { screen: Screen }) {
  return (
    <section class="placeholder">
      <PageTitle title={screen.label} />
      <p class="badge">Coming next</p>
      <p>This screen is not built yet. It will offer: {screen.about}</p>
      <p>
        Until then the API does it: see <a href="/openapi">the API explorer</a>, or go back <Link href="/app">Home</Link>.
      </p>
    </section>
  )
}

export function NotFound() {
  return (
    <section>
      <PageTitle title="Not found" />
      <p>There is no such page in the dashboard.</p>
      <p>
        <Link href="/app">Go Home</Link>
      </p>
    </section>
  )
}
