// The dashboard: who is signed in decides between the sign-in screens and the shell; the path picks the screen. The
// password pages (forgot, reset by a mailed link) open whoever is signed in, or nobody: a reset link must not be
// bounced to sign-in, which would drop the token in its #fragment.
import type { ComponentType } from 'preact'
import { useEffect } from 'preact/hooks'
import { match, navigate, usePlace, type Place } from './lib/router'
import { afterSignIn, loadSession, signInPath, useUser } from './lib/session'
import { loadWorkspaces } from './lib/workspaces'
import { Ask } from './screens/ask'
import { DocumentPage } from './screens/document'
import { Documents } from './screens/documents'
import { ForgotPassword } from './screens/forgot-password'
import { Home } from './screens/home'
import { Memories } from './screens/memories'
import { SCREENS } from './screens/nav'
import { NewDocument } from './screens/new-document'
import { NotFound, Placeholder } from './screens/placeholder'
import { ResetPassword } from './screens/reset-password'
import { Review } from './screens/review'
import { Search } from './screens/search'
import { SignIn } from './screens/sign-in'
import { Shell } from './ui/shell'
import { lazy } from './ui/lazy'
import { Loading } from './ui/states'
import './manage.css'
import './screens/conversations.css'
import './screens/graph.css'
import './screens/lists.css'
import './screens/activity.css'

// Loaded on first visit, each its own chunk (the graph's canvas and layout stay off the first screen).
const GraphScreen = lazy(() => import('./screens/graph').then((m) => m.GraphScreen))
const Conversations = lazy(() => import('./screens/conversations').then((m) => m.Conversations))
const ConversationPage = lazy(() => import('./screens/conversation').then((m) => m.ConversationPage))
const Workspaces = lazy(() => import('./screens/workspaces').then((m) => m.Workspaces))
const Connectors = lazy(() => import('./screens/connectors').then((m) => m.Connectors))
const Keys = lazy(() => import('./screens/keys').then((m) => m.Keys))
const Activity = lazy(() => import('./screens/activity').then((m) => m.Activity))
const Usage = lazy(() => import('./screens/usage').then((m) => m.Usage))
const SettingsScreen = lazy(() => import('./screens/settings').then((m) => m.SettingsScreen))

const AUTH_PATHS = { '/app/sign-in': 'sign-in', '/app/sign-up': 'sign-up' } as const
const OPEN_PATHS: Record<string, ComponentType> = { '/app/forgot-password': ForgotPassword, '/app/reset-password': ResetPassword }

/** /app/profile (where the API's verification and provider links land) is the Settings screen under its own name. */
function ToSettings({ search }: { search: string }) {
  useEffect(() => navigate(`/app/settings${search}`, { replace: true }), [])
  return <Loading />
}

function screenFor({ path }: Place) {
  if (path === '/app' || path === '/app/') return <Home />
  if (path === '/app/documents') return <Documents />
  if (path === '/app/documents/new') return <NewDocument />
  const doc = match('/app/documents/:id', path)
  if (doc) return <DocumentPage key={doc.id} id={doc.id!} />
  if (path === '/app/conversations') return <Conversations />
  const thread = match('/app/conversations/:id', path)
  if (thread) return <ConversationPage key={thread.id} id={thread.id!} />
  if (path === '/app/search') return <Search />
  if (path === '/app/ask') return <Ask />
  const conversation = match('/app/ask/:id', path)
  if (conversation) return <Ask id={conversation.id} />
  if (path === '/app/review') return <Review />
  if (path === '/app/memories') return <Memories />
  if (path === '/app/graph') return <GraphScreen />
  if (path === '/app/workspaces') return <Workspaces />
  if (path === '/app/connectors') return <Connectors />
  if (path === '/app/keys') return <Keys />
  if (path === '/app/activity') return <Activity />
  if (path === '/app/usage') return <Usage />
  if (path === '/app/settings') return <SettingsScreen />
  if (path === '/app/profile') return <ToSettings search={location.search} />
  const later = SCREENS.find((s) => !s.ready && (path === s.path || path.startsWith(`${s.path}/`)))
  if (later) return <Placeholder screen={later} />
  return <NotFound />
}

export function App() {
  const place = usePlace()
  const user = useUser()
  const auth = AUTH_PATHS[place.path as keyof typeof AUTH_PATHS]
  const Open = OPEN_PATHS[place.path.replace(/\/+$/, '')]
  useEffect(() => void loadSession(), [])
  useEffect(() => {
    if (user) loadWorkspaces().catch(() => {})
  }, [user?.id])
  useEffect(() => {
    if (user === null && !auth && !Open) navigate(signInPath(), { replace: true })
    if (user && auth) navigate(afterSignIn(place.query), { replace: true })
  }, [user, auth, Open])

  if (Open) return <Open />
  if (user === undefined) return <Loading label="Loading the dashboard…" />
  if (auth) return user ? <Loading /> : <SignIn key={auth} mode={auth} />
  if (!user) return <Loading label="Taking you to sign in…" />
  return <Shell>{screenFor(place)}</Shell>
}
