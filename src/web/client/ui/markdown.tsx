// Safe Markdown: the parsed tree (lib/markdown.ts) made into elements. Text stays text (Preact escapes it);
// a link is a link only when its address is http(s) or mailto — otherwise its words are shown, not followed.
import type { ComponentChildren } from 'preact'
import { parseMarkdown, type Block, type Inline } from '../lib/markdown'
import { safeHref } from '../lib/safe-url'

/** How a run of plain text becomes elements: as itself by default; an answer makes its `[n]` citations buttons. */
type RenderText = (text: string) => ComponentChildren
const asText: RenderText = (text) => text

/** `shift` lowers heading levels (a document's "# Title" under the page's own h1 becomes an h2). */
export function Markdown({ source, shift = 1, text = asText }: { source: string; shift?: number; text?: RenderText }) {
  return <div class="markdown">{parseMarkdown(source).map((block, i) => renderBlock(block, i, shift, text))}</div>
}

function renderBlock(block: Block, key: number, shift: number, text: RenderText): ComponentChildren {
  const renderInlines = (inlines: Inline[]) => inlineElements(inlines, text)
  switch (block.type) {
    case 'heading': {
      const Tag = `h${Math.min(6, block.level + shift)}` as 'h2'
      return (
        <Tag key={key} dir="auto">
          {renderInlines(block.children)}
        </Tag>
      )
    }
    // dir="auto": each block reads in its own text's direction (Arabic and Hebrew right to left).
    case 'paragraph':
      return (
        <p key={key} dir="auto">
          {renderInlines(block.children)}
        </p>
      )
    case 'code':
      return (
        <pre key={key} tabIndex={0}>
          <code>{block.text}</code>
        </pre>
      )
    case 'quote':
      return <blockquote key={key}>{block.children.map((b, i) => renderBlock(b, i, shift, text))}</blockquote>
    case 'list': {
      const items = block.items.map((item, i) => (
        <li key={i} dir="auto">
          {item.length === 1 && item[0]!.type === 'paragraph'
            ? renderInlines(item[0]!.children)
            : item.map((b, j) => renderBlock(b, j, shift, text))}
        </li>
      ))
      return block.ordered ? (
        <ol key={key} start={block.start}>
          {items}
        </ol>
      ) : (
        <ul key={key}>{items}</ul>
      )
    }
    case 'rule':
      return <hr key={key} />
    case 'table':
      // Wide tables scroll in their own box (focusable, so the keyboard can scroll it), never the page.
      return (
        <div key={key} class="table-scroll" tabIndex={0}>
          <table>
            <thead>
              <tr>
                {block.head.map((cell, c) => (
                  <th key={c} dir="auto" style={block.align[c] ? { textAlign: block.align[c]! } : undefined}>
                    {renderInlines(cell)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {block.rows.map((row, r) => (
                <tr key={r}>
                  {row.map((cell, c) => (
                    <td key={c} dir="auto" style={block.align[c] ? { textAlign: block.align[c]! } : undefined}>
                      {renderInlines(cell)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )
  }
}

function inlineElements(inlines: Inline[], text: RenderText): ComponentChildren {
  const renderInlines = (children: Inline[]) => inlineElements(children, text)
  return inlines.map((inline, i) => {
    switch (inline.type) {
      case 'text':
        return text(inline.text)
      case 'code':
        return <code key={i}>{inline.text}</code>
      case 'strong':
        return <strong key={i}>{renderInlines(inline.children)}</strong>
      case 'em':
        return <em key={i}>{renderInlines(inline.children)}</em>
      case 'break':
        return <br key={i} />
      case 'link': {
        const href = safeHref(inline.href)
        if (!href)
          return (
            <span key={i} class="unsafe-link" title={`link not followed: ${inline.href}`}>
              {renderInlines(inline.children)}
            </span>
          )
        return (
          <a key={i} href={href} target="_blank" rel="noopener noreferrer nofollow">
            {renderInlines(inline.children)}
          </a>
        )
      }
    }
  })
}
