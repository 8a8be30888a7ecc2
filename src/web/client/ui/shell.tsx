// The frame around every signed-in screen: skip link, top bar (menu on narrow screens, workspace switcher,
// who is signed in, sign out), the navigation of every screen (over the screen on a phone), the main region and the
// live region.
import type { ComponentChildren } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { api, done } from '../api/client'
import { announce, useAnnouncement } from '../lib/announce'
import { useDraftCount } from '../lib/draft-count'
import { plural } from '../lib/format'
import { navigate, usePlace } from '../lib/router'
import { setUser, SIGN_IN, useUser } from '../lib/session'
import { useAction } from '../lib/use-api'
import { forgetWorkspaces, useWorkspaces } from '../lib/workspaces'
import { SCREENS } from '../screens/nav'
import { Link } from './link'
import { ActionStatus } from './states'
import { UndoToast } from './toast'
import './phone.css'
import { WorkspaceSwitcher } from './workspace-switcher'

const REVIEW = '/app/review'

const isActive = (screen: string, path: string) => (screen === '/app' ? path === '/app' : path === screen || path.startsWith(`${screen}/`))

export function Shell({ children }: { children: ComponentChildren }) {
  const { path } = usePlace()
  const user = useUser()
  const announcement = useAnnouncement()
  const [open, setOpen] = useState(false)
  const signOut = useAction()
  const toggle = useRef<HTMLButtonElement>(null)
  const nav = useRef<HTMLElement>(null)
  useEffect(() => setOpen(false), [path])
  // On a phone the menu lies over the screen, below the top bar (whose height depends on what wraps): focus goes in,
  // Escape or a click elsewhere closes it, and Escape hands focus back to the Menu button.
  useEffect(() => {
    if (!open || !nav.current) return
    const top = document.querySelector('.topbar')?.getBoundingClientRect().bottom ?? 0
    nav.current.style.setProperty('--menu-top', `${Math.max(0, Math.round(top))}px`)
    if (getComputedStyle(nav.current).position !== 'fixed') return // the wide layout's menu is always there
    nav.current.querySelector<HTMLElement>('a[aria-current="page"], a')?.focus()
    const key = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return
      setOpen(false)
      toggle.current?.focus()
    }
    const press = (event: PointerEvent) => {
      const target = event.target as Node
      if (!nav.current?.contains(target) && !toggle.current?.contains(target)) setOpen(false)
    }
    document.addEventListener('keydown', key)
    document.addEventListener('pointerdown', press)
    return () => {
      document.removeEventListener('keydown', key)
      document.removeEventListener('pointerdown', press)
    }
  }, [open])
  const drafts = useDraftCount(useWorkspaces().current, path)
  const waiting = drafts && drafts.count > 0 ? `${drafts.count}${drafts.more ? '+' : ''}` : ''

  const leave = async () => {
    const ok = await signOut.run(async () => (await done(api.POST('/api/auth/sign-out')), true))
    if (!ok) return
    forgetWorkspaces()
    setUser(null)
    navigate(SIGN_IN)
    announce('Signed out')
  }

  return (
    <div class="app">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <button ref={toggle} type="button" class="menu-toggle" aria-expanded={open} aria-controls="nav" onClick={() => setOpen(!open)}>
          Menu
          {/* On a phone the navigation is folded away: the count shows on its button too. */}
          {waiting && (
            <span class="nav-count" aria-hidden="true">
              {waiting}
            </span>
          )}
        </button>
        <Link href="/app" class="brand">
          Memory
        </Link>
        <WorkspaceSwitcher />
        <div class="who">
          <span class="email" title={user?.email}>
            {user?.name || user?.email}
          </span>
          <button type="button" class="quiet" onClick={leave} disabled={signOut.busy}>
            Sign out
          </button>
        </div>
      </header>
      <ActionStatus action={signOut} />
      <div class="layout">
        <nav ref={nav} id="nav" aria-label="Screens" class={open ? 'open' : ''}>
          <ul>
            {SCREENS.map((screen) => (
              <li key={screen.path}>
                <Link
                  href={screen.path}
                  aria-current={isActive(screen.path, path) ? 'page' : undefined}
                  aria-describedby={screen.path === REVIEW && waiting ? 'drafts-waiting' : undefined}
                >
                  {screen.label}
                  {!screen.ready && <span class="soon">next</span>}
                  {/* The link keeps its name ("Review"); the count is its description, read after it. */}
                  {screen.path === REVIEW && waiting && (
                    <span class="nav-count" aria-hidden="true">
                      {waiting}
                    </span>
                  )}
                </Link>
                {screen.path === REVIEW && waiting && (
                  <span id="drafts-waiting" class="visually-hidden">
                    {drafts!.more ? `more than ${plural(drafts!.count, 'draft')}` : plural(drafts!.count, 'draft')} waiting
                  </span>
                )}
              </li>
            ))}
          </ul>
        </nav>
        <main id="main" tabIndex={-1}>
          {children}
        </main>
      </div>
      <div class="toasts">
        <UndoToast />
        <div class="toast" role="status" aria-live="polite">
          {announcement}
        </div>
      </div>
    </div>
  )
}
