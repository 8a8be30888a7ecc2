// A document's page: its body as safe Markdown, metadata, tags and links; edit, pin, rate, archive or
// restore, and forget (permanent, confirmed first). A message opens in its conversation instead, at that message
// (so a citation or a link anywhere to a message lands there), unless ?view=document asks for this page or the message
// is archived. An uploaded file's document shows its file and its text by page, slide or sheet, opened at the one
// its link names (?page=2, as search results and citations link it), and follows a file still being read.
import { useEffect, useState } from 'preact/hooks'
import { api, unwrap } from '../api/client'
import { announce } from '../lib/announce'
import { deleteLater } from '../lib/delete-later'
import { placeIn } from '../lib/file-places'
import { isMessage, messageHref } from '../lib/messages'
import { navigate, usePlace } from '../lib/router'
import { useAction, useApi } from '../lib/use-api'
import { Confirm } from '../ui/confirm'
import { DocMeta, Tags } from '../ui/doc-list'
import { Link } from '../ui/link'
import { Markdown } from '../ui/markdown'
import { PageTitle } from '../ui/page'
import { ActionStatus, Loaded, Loading } from '../ui/states'
import { showToast } from '../ui/toast'
import type { Doc } from './document-doc'
import { DocumentDetails } from './document-details'
import { DocumentEdit } from './document-edit'
import { DocumentHistory } from './document-history'
import { FileBody, FileDetails } from './document-file'
import { DocumentLinks } from './document-links'

export function DocumentPage({ id }: { id: string }) {
  const doc = useApi((signal) => unwrap(api.GET('/api/documents/{id}', { params: { path: { id } }, signal })), [id])
  const { query } = usePlace()
  // Decided on the first load only: restoring an archived message here keeps the person here.
  const [stay, setStay] = useState(query.get('view') === 'document')
  const loaded = doc.data
  // An archived message is not shown in its conversation: it stays here, where it can be restored.
  const inThread = !stay && loaded && isMessage(loaded) && loaded.status === 'active' ? loaded : undefined
  useEffect(() => {
    if (inThread) navigate(messageHref(inThread.thread_id, inThread.id), { replace: true })
    else if (loaded) setStay(true)
  }, [loaded])
  // A file still being read is asked after every 1.5 s, a bounded number of times (about two minutes).
  const [polls, setPolls] = useState(0)
  const reading = loaded?.file?.status === 'processing' && !doc.loading
  useEffect(() => {
    if (!reading || polls >= MAX_POLLS) return
    const timer = setTimeout(() => (setPolls((n) => n + 1), doc.reload()), POLL_MS)
    return () => clearTimeout(timer)
  }, [reading, polls])
  if (inThread) return <Loading label="Opening the conversation…" />
  return <Loaded query={doc}>{(loaded) => <DocumentView doc={loaded} reload={doc.reload} query={query} />}</Loaded>
}

const POLL_MS = 1500
const MAX_POLLS = 80

function DocumentView({ doc, reload, query }: { doc: Doc; reload(): void; query: URLSearchParams }) {
  const [editing, setEditing] = useState(false)
  const [forgetting, setForgetting] = useState(false)
  const [deleted, setDeleted] = useState(false)
  const action = useAction()
  const path = { params: { path: { id: doc.id } } }

  const act = async (call: () => Promise<unknown>, message: string) => {
    if ((await action.run(async () => (await call(), true))) === undefined) return
    announce(message)
    reload()
  }
  const pin = () =>
    act(() => unwrap(api.PATCH('/api/documents/{id}', { ...path, body: { pinned: !doc.pinned } })), doc.pinned ? 'Unpinned' : 'Pinned')
  const rate = (rating: -1 | 0 | 1) =>
    act(() => unwrap(api.POST('/api/documents/{id}/rate', { ...path, body: { rating } })), rating ? 'Rated' : 'Rating cleared')
  const archive = async () => {
    if (doc.status === 'archived') return act(() => unwrap(api.POST('/api/documents/{id}/restore', path)), 'Restored')
    if ((await action.run(async () => (await unwrap(api.POST('/api/documents/{id}/archive', path)), true))) === undefined) return
    reload()
    showToast({
      message: 'Archived: hidden from search and lists until restored',
      onUndo: () => act(() => unwrap(api.POST('/api/documents/{id}/restore', path)), 'Restored'),
    })
  }
  /** Deleted when the undo toast ends (or the page is left); until then the page says so, and Undo brings it back. */
  const remove = () => {
    setDeleted(true)
    deleteLater({
      ids: [doc.id],
      message: `Deleted “${doc.title}”`,
      onUndo: () => setDeleted(false),
    })
  }
  const forget = async () => {
    const ok = await action.run(async () => (await unwrap(api.POST('/api/documents/{id}/forget', path)), true))
    setForgetting(false)
    if (!ok) return
    announce('Forgotten: permanently deleted')
    navigate('/app/documents', { replace: true })
  }

  if (deleted)
    return (
      <article class="document">
        <PageTitle title={doc.title} />
        <p>
          “{doc.title}” is deleted. <Link href="/app/documents">Back to the documents</Link>
        </p>
      </article>
    )
  if (editing) return <DocumentEdit doc={doc} onDone={(saved) => (setEditing(false), saved && reload())} />
  return (
    <article class="document">
      <PageTitle title={doc.title} />
      <DocMeta doc={doc} />
      <Tags tags={doc.tags} />
      {doc.status === 'active' && !isMessage(doc) && (
        <Link href={`/app/graph?workspace=${doc.workspace_id}&focus=${doc.id}`}>Show in graph</Link>
      )}
      {isMessage(doc) && (
        <p>
          <Link href={messageHref(doc.thread_id, doc.id)}>Read it in its conversation</Link>
        </p>
      )}
      <div class="toolbar row" role="toolbar" aria-label="Document actions">
        <button type="button" onClick={() => setEditing(true)}>
          Edit
        </button>
        <button type="button" aria-pressed={doc.pinned} onClick={pin} disabled={action.busy}>
          {doc.pinned ? 'Unpin' : 'Pin'}
        </button>
        <span class="rating" role="group" aria-label="Rating">
          <button
            type="button"
            aria-pressed={doc.rating === 1}
            onClick={() => rate(doc.rating === 1 ? 0 : 1)}
            disabled={action.busy}
            title="Useful: ranks it a little higher"
          >
            <span aria-hidden="true">▲</span> Useful
          </button>
          <button
            type="button"
            aria-pressed={doc.rating === -1}
            onClick={() => rate(doc.rating === -1 ? 0 : -1)}
            disabled={action.busy}
            title="Not useful: ranks it a little lower"
          >
            <span aria-hidden="true">▼</span> Not useful
          </button>
        </span>
        <button type="button" onClick={archive} disabled={action.busy || doc.status === 'pending_approval'}>
          {doc.status === 'archived' ? 'Restore' : 'Archive'}
        </button>
        <button type="button" class="danger" onClick={remove} disabled={action.busy}>
          Delete
        </button>
        <button type="button" class="danger" onClick={() => setForgetting(true)} disabled={action.busy}>
          Forget…
        </button>
      </div>
      <ActionStatus action={action} />
      {forgetting && (
        <Confirm
          title="Forget this document permanently?"
          confirm="Forget permanently"
          danger
          busy={action.busy}
          onConfirm={forget}
          onCancel={() => setForgetting(false)}
        >
          <p>
            “{doc.title}” will be purged from storage and search. <strong>This is permanent: it cannot be recovered.</strong>
          </p>
          <p>To hide it but keep a way back, archive it instead.</p>
        </Confirm>
      )}
      <div class="columns">
        <section class="body" aria-label="Body">
          {doc.sections ? (
            <FileBody doc={{ ...doc, sections: doc.sections }} place={placeIn(query)} />
          ) : doc.file?.status === 'processing' ? (
            <p class="hint">The file is being read: its text shows here once it is.</p>
          ) : (
            <Markdown source={doc.body} />
          )}
        </section>
        <aside class="side">
          {doc.file && <FileDetails id={doc.id} file={doc.file} />}
          <DocumentDetails doc={doc} />
          <DocumentLinks id={doc.id} />
        </aside>
      </div>
      <DocumentHistory doc={doc} reload={reload} />
    </article>
  )
}
