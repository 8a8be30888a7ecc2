// Notion as the end-to-end suite drives it: a team handbook with a child runbook, a decisions database and a
// trashed page.
import { block, startNotionFake, type NotionFake } from '../../fakes/notion'
import type { ProviderCase } from './case'

export const notionCase: ProviderCase<NotionFake, { runbook: string; decision: string; root: string }> = {
  type: 'notion',
  start: (callbackUrl) => startNotionFake({ callbackUrl, workspaceName: 'Acme Notion' }),
  seed(fake) {
    const root = fake.addPage({
      title: 'Engineering Handbook',
      blocks: [
        block('heading_1', 'Onboarding'),
        block('paragraph', 'Every engineer pairs on the quokka deployment ritual'),
        block('to_do', 'Read the style guide', { checked: true }),
      ],
    })
    const runbook = fake.addPage({
      title: 'Incident Runbook',
      parent: root,
      blocks: [block('paragraph', 'Page the wombat rotation first')],
    })
    const decisions = fake.addDatabase({ title: 'Decisions', parent: root })
    const decision = fake.addPage({
      title: 'Adopt Postgres',
      parent: decisions,
      titleProperty: 'Name',
      properties: { Status: { type: 'select', select: { name: 'Accepted', color: 'green' } } },
      blocks: [block('paragraph', 'The narwhal benchmark settled it')],
    })
    const old = fake.addPage({ title: 'Old Notes', parent: root, blocks: [block('paragraph', 'stale dodo notes')] })
    fake.trashPage(old)
    return {
      imported: [
        { title: 'Engineering Handbook', phrase: 'quokka deployment ritual' },
        { title: 'Incident Runbook', phrase: 'wombat rotation' },
        { title: 'Adopt Postgres', phrase: 'narwhal benchmark' },
      ],
      skipped: 0,
      handles: { runbook, decision, root },
    }
  },
  edit(fake, h) {
    fake.editPage(h.runbook, { blocks: [block('paragraph', 'Escalate to the platypus channel')] })
    return { title: 'Incident Runbook', phrase: 'platypus channel' }
  },
  remove(fake, h) {
    fake.trashPage(h.decision)
    return 'Adopt Postgres'
  },
  add(fake, h) {
    fake.addPage({ title: 'Postmortem Template', parent: h.root, blocks: [block('paragraph', 'Blameless axolotl review')] })
    return { title: 'Postmortem Template', phrase: 'axolotl review' }
  },
  revokes: true,
  isContentRequest: (r) => r.method === 'GET' && r.path.startsWith('/v1/blocks/') && r.path.endsWith('/children'),
}
