// Files in: chosen (a button, so the keyboard has it) or dropped anywhere on the screen, sent two at a time with a
// progress bar each, then followed until read — Reading…, Ready, Already here, or the reason it was refused or unreadable.
import { useEffect, useRef, useState } from 'preact/hooks'
import { api, ApiError, unwrap } from '../api/client'
import { announce } from '../lib/announce'
import { FILE_ACCEPT, uploadFile, type UploadedDocument, type UploadFields } from '../lib/file-upload'
import { formatBytes, plural } from '../lib/format'
import { sessionExpired } from '../lib/session'
import { waitSeconds } from '../lib/wait'
import { Link } from '../ui/link'

/** Files sent at once: enough to keep the line busy, few enough that the first ones finish first. */
const PARALLEL = 2
/** How often, and how many times, a file being read is asked after (about two minutes in all). */
const POLL_MS = 1500
const MAX_POLLS = 80
const MAX_RETRIES = 3

interface Doc {
  id: string
  title: string
  file?: { status: string; error: string | null }
}

type State =
  | { kind: 'queued' }
  | { kind: 'uploading'; sent: number }
  | { kind: 'waiting'; seconds: number }
  | { kind: 'reading'; doc: Doc }
  | { kind: 'ready'; doc: Doc }
  | { kind: 'already'; doc: Doc }
  | { kind: 'slow'; doc: Doc }
  | { kind: 'failed'; error: string; doc?: Doc }

interface Row {
  key: number
  file: File
  fields: UploadFields
  state: State
}

const PENDING = new Set<State['kind']>(['queued', 'uploading', 'waiting', 'reading'])
let nextKey = 1

/** A Markdown note's first heading, as its title (the service names it after the file otherwise); none when it has
 * front matter, whose own title the service reads. */
export async function markdownTitle(file: File): Promise<string | undefined> {
  if (!/\.(md|markdown)$/i.test(file.name)) return undefined
  const text = await file.slice(0, 64 * 1024).text()
  if (/^\uFEFF?---\s*$/m.test(text.split('\n', 1)[0] ?? '')) return undefined
  return /^#{1,6}\s+(.+?)\s*#*\s*$/m.exec(text)?.[1]?.slice(0, 500) || undefined
}

export function FileUploads({ fields }: { fields: UploadFields }) {
  const [rows, setRows] = useState<Row[]>([])
  const [dragging, setDragging] = useState(false)
  const input = useRef<HTMLInputElement>(null)
  const queue = useRef<Row[]>([])
  const active = useRef(0)
  const stop = useRef(new AbortController())
  const latest = useRef(fields)
  latest.current = fields

  // Leaving the screen drops the files not sent yet and stops asking after the others (those sent are kept).
  useEffect(() => () => stop.current.abort(), [])

  const set = (key: number, state: State) => setRows((all) => all.map((r) => (r.key === key ? { ...r, state } : r)))

  const send = async (row: Row) => {
    const { signal } = stop.current
    const title = await markdownTitle(row.file).catch(() => undefined)
    for (let attempt = 0; ; attempt++) {
      set(row.key, { kind: 'uploading', sent: 0 })
      try {
        const doc = await uploadFile(
          row.file,
          { ...row.fields, ...(title ? { title } : {}) },
          (sent) => set(row.key, { kind: 'uploading', sent }),
          signal,
        )
        void follow(row.key, doc)
        return
      } catch (error) {
        if (signal.aborted) return
        if (error instanceof ApiError && error.status === 401) return sessionExpired()
        if (error instanceof ApiError && error.status === 429 && attempt < MAX_RETRIES) {
          await waitSeconds(error.retryAfter ?? 5, (seconds) => set(row.key, { kind: 'waiting', seconds }), signal).catch(() => {})
          if (signal.aborted) return
          continue
        }
        set(row.key, { kind: 'failed', error: (error as Error).message || 'not saved' })
        return
      }
    }
  }

  /** Asks after a file being read until it is read or unreadable, a bounded number of times. */
  const follow = async (key: number, uploaded: UploadedDocument) => {
    const { signal } = stop.current
    let doc: Doc = uploaded
    for (let polls = 0; ; polls++) {
      const status = doc.file?.status
      if (status === 'failed') return set(key, { kind: 'failed', error: doc.file?.error || 'the file could not be read', doc })
      if (uploaded.deduplicated) return set(key, { kind: 'already', doc })
      if (status !== 'processing') return set(key, { kind: 'ready', doc })
      if (polls >= MAX_POLLS) return set(key, { kind: 'slow', doc })
      set(key, { kind: 'reading', doc })
      await new Promise((resolve) => setTimeout(resolve, POLL_MS))
      if (signal.aborted) return
      try {
        doc = await unwrap(api.GET('/api/documents/{id}', { params: { path: { id: doc.id } }, signal }))
      } catch (error) {
        if (signal.aborted) return
        if (error instanceof ApiError && error.status === 401) return sessionExpired()
        // Anything else (a 429, the network): asked again next time round, within the same bound.
      }
    }
  }

  const pump = () => {
    while (active.current < PARALLEL && queue.current.length > 0) {
      const row = queue.current.shift()!
      active.current++
      void send(row).finally(() => {
        active.current--
        pump()
      })
    }
  }

  const add = (files: File[]) => {
    if (files.length === 0 || stop.current.signal.aborted) return
    const fresh = files.map((file): Row => ({ key: nextKey++, file, fields: { ...latest.current }, state: { kind: 'queued' } }))
    setRows((all) => [...all, ...fresh])
    queue.current.push(...fresh)
    announce(`${plural(fresh.length, 'file')} added`)
    pump()
  }
  const addRef = useRef(add)
  addRef.current = add

  // Dropped anywhere on the screen, not only on the zone: a file let go beside it must not open in the tab instead.
  useEffect(() => {
    const hasFiles = (event: DragEvent) => event.dataTransfer?.types.includes('Files') ?? false
    const over = (event: DragEvent) => {
      if (!hasFiles(event)) return
      event.preventDefault()
      if (event.dataTransfer) event.dataTransfer.dropEffect = 'copy'
      setDragging(true)
    }
    const leave = (event: DragEvent) => {
      if (!event.relatedTarget) setDragging(false)
    }
    const drop = (event: DragEvent) => {
      const files = Array.from(event.dataTransfer?.files ?? [])
      if (files.length === 0) return
      event.preventDefault()
      setDragging(false)
      addRef.current(files)
    }
    addEventListener('dragenter', over)
    addEventListener('dragover', over)
    addEventListener('dragleave', leave)
    addEventListener('drop', drop)
    return () => {
      removeEventListener('dragenter', over)
      removeEventListener('dragover', over)
      removeEventListener('dragleave', leave)
      removeEventListener('drop', drop)
    }
  }, [])

  // Once every file has come to rest, one summary for screen readers (each row says its own state on screen).
  const pending = rows.some((r) => PENDING.has(r.state.kind))
  const wasPending = useRef(false)
  useEffect(() => {
    if (wasPending.current && !pending) {
      const ready = rows.filter((r) => r.state.kind === 'ready' || r.state.kind === 'already').length
      announce(`${ready} of ${plural(rows.length, 'file')} ready`)
    }
    wasPending.current = pending
  }, [pending])

  return (
    <section class="files card" aria-labelledby="files-heading">
      <h2 id="files-heading">Upload files</h2>
      <div class={`dropzone${dragging ? ' dragging' : ''}`}>
        <p class="dropzone-text">
          {dragging ? 'Drop the files to upload them' : 'Drop files anywhere on this screen, or'}{' '}
          <button type="button" class="primary" onClick={() => input.current?.click()}>
            Choose files…
          </button>
        </p>
        <p class="hint">
          PDF, Word (DOCX), PowerPoint (PPTX), Excel (XLSX), CSV, HTML, Markdown, text, EPUB and OpenDocument (ODT, ODP, ODS). Each file
          becomes a document, found by its page, slide or sheet.
        </p>
        <input
          ref={input}
          type="file"
          hidden
          multiple
          accept={FILE_ACCEPT}
          onChange={(e) => {
            add(Array.from(e.currentTarget.files ?? []))
            e.currentTarget.value = ''
          }}
        />
      </div>
      {rows.length > 0 && (
        <ul class="uploads" aria-label="Files">
          {rows.map((row) => (
            <UploadRow key={row.key} row={row} />
          ))}
        </ul>
      )}
    </section>
  )
}

function UploadRow({ row: { file, state } }: { row: Row }) {
  const open = (doc: Doc) => (
    <Link href={`/app/documents/${doc.id}`} class="doc-title">
      {doc.title}
    </Link>
  )
  return (
    <li class={`upload ${state.kind}`}>
      <p class="upload-file">
        <span class="upload-name">{file.name}</span> <span class="hint">{formatBytes(file.size)}</span>
      </p>
      {(state.kind === 'uploading' || state.kind === 'queued') && (
        <progress max={1} value={state.kind === 'uploading' ? state.sent : 0} aria-label={`Uploading ${file.name}`} />
      )}
      <p class="upload-state">
        {state.kind === 'queued' && 'Waiting to upload'}
        {state.kind === 'uploading' && `Uploading… ${Math.round(state.sent * 100)}%`}
        {state.kind === 'waiting' && `Too many requests: trying again in ${state.seconds} s`}
        {state.kind === 'reading' && (
          <>
            <span class="spinner" aria-hidden="true" /> Reading… {open(state.doc)}
          </>
        )}
        {state.kind === 'ready' && (
          <>
            <strong class="ok">Ready</strong> {open(state.doc)}
          </>
        )}
        {state.kind === 'already' && (
          <>
            <strong>Already here</strong> {open(state.doc)}
          </>
        )}
        {state.kind === 'slow' && <>Still being read: open it in a while {open(state.doc)}</>}
        {state.kind === 'failed' && (
          <>
            <span class="error-text">{state.error}</span>
            {state.doc && <> {open(state.doc)}</>}
          </>
        )}
      </p>
    </li>
  )
}
