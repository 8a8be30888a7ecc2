// Google Drive as the end-to-end suite drives it: an Eng folder with a subfolder, a Google Doc, Markdown and
// text files, a PDF (skipped), a trashed file, and a file outside the selected folder.
import { startGoogleDriveFake, type FakeGoogleDrive } from '../../fakes/google-drive'
import type { ProviderCase } from './case'

const DOC = 'application/vnd.google-apps.document'

export const googleDriveCase: ProviderCase<FakeGoogleDrive, { runbook: string; glossary: string; eng: string }> = {
  type: 'google_drive',
  start: (callbackUrl) => startGoogleDriveFake({ callbackUrl }),
  seed(fake) {
    const eng = fake.addFolder('Eng')
    const specs = fake.addFolder('Specs', [eng.id])
    fake.addFile({
      name: 'Architecture',
      mimeType: DOC,
      content: 'Architecture\n\nThe quokka gateway fronts every service.',
      parents: [specs.id],
    })
    const runbook = fake.addFile({
      name: 'runbook.md',
      mimeType: 'text/markdown',
      content: '# Runbook\n\nPage the wombat rotation first.',
      parents: [eng.id],
    })
    const glossary = fake.addFile({ name: 'glossary.txt', content: 'Narwhal: our benchmark harness.', parents: [eng.id] })
    fake.addFile({ name: 'Scan.pdf', mimeType: 'application/pdf', size: 2000, parents: [eng.id] })
    const binned = fake.addFile({ name: 'binned.txt', content: 'stale dodo notes', parents: [eng.id] })
    fake.trashFile(binned.id)
    fake.addFile({ name: 'salaries.txt', content: 'confidential pangolin bands' })
    return {
      imported: [
        { title: 'Architecture', phrase: 'quokka gateway' },
        { title: 'runbook.md', phrase: 'wombat rotation' },
        { title: 'glossary.txt', phrase: 'Narwhal' },
      ],
      skipped: 1,
      handles: { runbook: runbook.id, glossary: glossary.id, eng: eng.id },
      config: { folders: [eng.id] },
    }
  },
  edit(fake, h) {
    fake.editFile(h.runbook, { content: '# Runbook\n\nEscalate to the platypus channel.' })
    return { title: 'runbook.md', phrase: 'platypus channel' }
  },
  remove(fake, h) {
    fake.trashFile(h.glossary)
    return 'glossary.txt'
  },
  add(fake, h) {
    fake.addFile({ name: 'Postmortem Template', mimeType: DOC, content: 'Blameless axolotl review.', parents: [h.eng] })
    return { title: 'Postmortem Template', phrase: 'axolotl review' }
  },
  revokes: true,
  isContentRequest: (r) => r.method === 'GET' && (/\/export$/.test(r.path) || r.query.alt === 'media'),
}
