// <Link>: an ordinary <a href> (open in a new tab, copy link) that navigates within the app on a plain click.
import type { ComponentChildren, TargetedMouseEvent } from 'preact'
import { navigate } from '../lib/router'

interface Props {
  href: string
  children: ComponentChildren
  class?: string
  title?: string
  'aria-current'?: 'page'
  'aria-describedby'?: string
  'aria-label'?: string
}

export function Link({ href, children, ...rest }: Props) {
  const click = (event: TargetedMouseEvent<HTMLAnchorElement>) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
    event.preventDefault()
    navigate(href)
  }
  return (
    <a href={href} onClick={click} {...rest}>
      {children}
    </a>
  )
}
