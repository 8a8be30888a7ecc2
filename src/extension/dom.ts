// DOM helpers for the extension's pages: elements by id, and new elements whose content is only ever text.

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id)
  if (!el) throw new Error(`#${id} is missing from the page`)
  return el as T
}

/** An element with text content (never parsed as HTML: page titles and snippets are untrusted). */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: { className?: string; text?: string } = {},
  children: Node[] = [],
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag)
  if (props.className) node.className = props.className
  if (props.text !== undefined) node.textContent = props.text
  node.append(...children)
  return node
}

export function show(node: HTMLElement, visible: boolean) {
  node.hidden = !visible
}
