// Storage-format → plain text: blocks on their own lines, entities decoded, code kept, macro noise dropped.
import { describe, expect, test } from 'bun:test'
import { decodeEntities, storageToText } from './confluence-storage'

describe('storageToText', () => {
  test('headings, paragraphs and list items each get a line; blocks are set apart', () => {
    const storage =
      '<h1>Onboarding</h1><p>Welcome to the <strong>team</strong>.</p><ul><li>Get a laptop</li><li>Read the <em>handbook</em></li></ul><h2>Next</h2><p>Meet   your\n  buddy.</p>'
    expect(storageToText(storage)).toBe('Onboarding\n\nWelcome to the team.\n\nGet a laptop\nRead the handbook\n\nNext\n\nMeet your buddy.')
  })

  test('table cells sit on their own lines', () => {
    const storage =
      '<table><tbody><tr><th>Service</th><th>Owner</th></tr><tr><td><p>billing</p></td><td>Ana</td></tr></tbody></table><p>after</p>'
    expect(storageToText(storage)).toBe('Service\nOwner\nbilling\nAna\n\nafter')
  })

  test('entities are decoded, named and numeric', () => {
    expect(storageToText('<p>R&amp;D&nbsp;team &mdash; caf&eacute; &#8364;5 &#x263A; &lt;tag&gt; &unknown;</p>')).toBe(
      'R&D team — café €5 ☺ <tag> &unknown;',
    )
  })

  test('a code macro keeps its CDATA verbatim and drops its parameters', () => {
    const storage = [
      '<p>Run this:</p>',
      '<ac:structured-macro ac:name="code" ac:schema-version="1" ac:macro-id="a1b2">',
      '<ac:parameter ac:name="language">bash</ac:parameter><ac:parameter ac:name="title">Deploy &amp; check</ac:parameter>',
      '<ac:plain-text-body><![CDATA[if [ -n "$X" ]; then\n  echo "a < b && c"\nfi\n]]></ac:plain-text-body></ac:structured-macro>',
      '<p>Done.</p>',
    ].join('')
    expect(storageToText(storage)).toBe('Run this:\n\nif [ -n "$X" ]; then\n  echo "a < b && c"\nfi\n\nDone.')
  })

  test('macro bodies are kept, their parameters are not', () => {
    const storage =
      '<ac:structured-macro ac:name="info"><ac:parameter ac:name="title">Heads up</ac:parameter><ac:rich-text-body><p>Freeze starts Friday.</p></ac:rich-text-body></ac:structured-macro>'
    expect(storageToText(storage)).toBe('Freeze starts Friday.')
  })

  test('images, attachments and emoticons are dropped; link text is kept', () => {
    const storage = [
      '<p>Diagram: <ac:image ac:height="250"><ri:attachment ri:filename="arch.png" /></ac:image> see <ac:emoticon ac:name="smile" />above</p>',
      '<p><ac:link><ri:attachment ri:filename="spec.pdf" /><ac:plain-text-link-body><![CDATA[the spec]]></ac:plain-text-link-body></ac:link> and ',
      '<ac:link><ri:page ri:content-title="Release &amp; process" ri:space-key="ENG" /></ac:link> and <a href="https://example.com">the site</a></p>',
    ].join('')
    expect(storageToText(storage)).toBe('Diagram: see above\n\nthe spec and Release & process and the site')
  })

  test('task lists keep the task text, not its id or status', () => {
    const storage =
      '<ac:task-list><ac:task><ac:task-id>1</ac:task-id><ac:task-status>incomplete</ac:task-status><ac:task-body>Ship it</ac:task-body></ac:task><ac:task><ac:task-id>2</ac:task-id><ac:task-status>complete</ac:task-status><ac:task-body>Test it</ac:task-body></ac:task></ac:task-list>'
    expect(storageToText(storage)).toBe('Ship it\nTest it')
  })

  test('line breaks, nested lists, dates and layouts', () => {
    const storage =
      '<ac:layout><ac:layout-section ac:type="two_equal"><ac:layout-cell><p>left<br/>next line</p></ac:layout-cell><ac:layout-cell><ol><li>one<ul><li>one.a</li></ul></li><li>two</li></ol></ac:layout-cell></ac:layout-section></ac:layout><p>Due <time datetime="2024-05-01" /></p>'
    expect(storageToText(storage)).toBe('left\nnext line\n\none\none.a\ntwo\n\nDue 2024-05-01')
  })

  test('comments, stray closing tags and empty bodies give nothing extra', () => {
    expect(storageToText('<!-- hidden --><p>text</p></div></span>')).toBe('text')
    expect(storageToText('')).toBe('')
    expect(storageToText('<p><ac:image><ri:url ri:value="https://x/y.png" /></ac:image></p>')).toBe('')
  })
})

test('decodeEntities leaves out-of-range numbers alone', () => {
  expect(decodeEntities('&#0; &#x110000; &amp;amp;')).toBe('&#0; &#x110000; &amp;')
})
