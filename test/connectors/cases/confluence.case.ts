// Confluence as the end-to-end suite drives it: an engineering space in storage format (headings, a code
// macro, a table), an archived page, a page with no text, and a space outside the selection.
import { startConfluenceFake, type ConfluenceFake } from '../../fakes/confluence'
import type { ProviderCase } from './case'

export const confluenceCase: ProviderCase<ConfluenceFake, { runbook: string; glossary: string }> = {
  type: 'confluence',
  // A small page size, so the listing crosses pages.
  start: (callbackUrl) => startConfluenceFake({ callbackUrl, maxLimit: 2 }),
  seed(fake) {
    fake.addSpace({ key: 'ENG', name: 'Engineering' })
    fake.addSpace({ key: 'HR', name: 'People' })
    fake.addPage('ENG', {
      title: 'Architecture',
      body: '<h1>Overview</h1><p>The quokka gateway fronts every service.</p><ac:structured-macro ac:name="code"><ac:parameter ac:name="language">sh</ac:parameter><ac:plain-text-body><![CDATA[make deploy]]></ac:plain-text-body></ac:structured-macro>',
    })
    const runbook = fake.addPage('ENG', {
      title: 'Runbook',
      body: '<p>Page the wombat rotation first.</p><table><tr><th>Sev</th><th>Owner</th></tr><tr><td>1</td><td>SRE</td></tr></table>',
    })
    const glossary = fake.addPage('ENG', { title: 'Glossary', body: '<p>Narwhal: our benchmark harness.</p>' })
    fake.addPage('ENG', { title: 'Diagram only', body: '<ac:image><ri:attachment ri:filename="arch.png" /></ac:image>' })
    fake.addPage('ENG', { title: 'Old plan', body: '<p>stale dodo plan</p>', status: 'archived' })
    fake.addPage('HR', { title: 'Salaries', body: '<p>confidential pangolin bands</p>' })
    return {
      imported: [
        { title: 'Architecture', phrase: 'quokka gateway' },
        { title: 'Runbook', phrase: 'wombat rotation' },
        { title: 'Glossary', phrase: 'Narwhal' },
      ],
      // The page with only an image has no text to import.
      skipped: 1,
      handles: { runbook: runbook.id, glossary: glossary.id },
      config: { spaces: ['ENG'] },
    }
  },
  edit(fake, h) {
    fake.editPage(h.runbook, { body: '<p>Escalate to the platypus channel.</p>' })
    return { title: 'Runbook', phrase: 'platypus channel' }
  },
  remove(fake, h) {
    fake.removePage(h.glossary)
    return 'Glossary'
  },
  add(fake) {
    fake.addPage('ENG', { title: 'Postmortem Template', body: '<p>Blameless axolotl review.</p>' })
    return { title: 'Postmortem Template', phrase: 'axolotl review' }
  },
  revokes: false,
  isContentRequest: (r) => r.method === 'GET' && /\/wiki\/api\/v2\/pages\/[^/]+$/.test(r.path),
}
