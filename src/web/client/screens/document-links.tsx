// The links of a document: confirmed ones and suggestions, each with its score and the document at the other end.
import { api, unwrap } from '../api/client'
import { formatScore } from '../lib/format'
import { useApi } from '../lib/use-api'
import { Link } from '../ui/link'
import { Loaded } from '../ui/states'

export function DocumentLinks({ id }: { id: string }) {
  const links = useApi((signal) => unwrap(api.GET('/api/documents/{id}/links', { params: { path: { id } }, signal })), [id])
  return (
    <section class="card" aria-labelledby="links-heading">
      <h2 id="links-heading">Links</h2>
      <Loaded query={links}>
        {({ data }) =>
          data.length ? (
            <ul class="links">
              {data.map((link) => (
                <li key={link.id}>
                  <Link href={`/app/documents/${link.document.id}`}>{link.document.title}</Link>
                  <span class="meta">
                    <span class={`status ${link.status}`}>{link.status === 'pending' ? 'suggested' : 'linked'}</span> score{' '}
                    {formatScore(link.score)}
                  </span>
                </li>
              ))}
            </ul>
          ) : (
            <p class="hint">No links yet: related documents are suggested once this one is embedded.</p>
          )
        }
      </Loaded>
    </section>
  )
}
