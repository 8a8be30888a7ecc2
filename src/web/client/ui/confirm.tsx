// A confirmation in a modal <dialog> (focus trapped and restored by the browser, Escape cancels): for what
// cannot be undone, say so in `children` and name the action on the confirming button.
import type { ComponentChildren } from 'preact'
import { useEffect, useRef } from 'preact/hooks'

interface Props {
  title: string
  confirm: string
  children: ComponentChildren
  danger?: boolean
  busy?: boolean
  onConfirm(): void
  onCancel(): void
}

export function Confirm({ title, confirm, children, danger, busy, onConfirm, onCancel }: Props) {
  const dialog = useRef<HTMLDialogElement>(null)
  useEffect(() => {
    const element = dialog.current
    if (element && !element.open) element.showModal()
    return () => element?.close()
  }, [])
  return (
    <dialog ref={dialog} class="confirm" aria-labelledby="confirm-title" onCancel={(e) => (e.preventDefault(), onCancel())}>
      <h2 id="confirm-title">{title}</h2>
      <div>{children}</div>
      <div class="row end">
        <button type="button" onClick={onCancel} autoFocus>
          Cancel
        </button>
        <button type="button" class={danger ? 'danger' : 'primary'} onClick={onConfirm} disabled={busy}>
          {confirm}
        </button>
      </div>
    </dialog>
  )
}
