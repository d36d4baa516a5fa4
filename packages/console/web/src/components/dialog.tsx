/**
 * A modal built on the native <dialog>: focus moves into it, Escape closes it, and focus goes
 * back where it was, which the browser does for showModal() dialogs.
 */
import type { ComponentChildren } from 'preact'
import { useEffect, useRef } from 'preact/hooks'
import { ErrorBox } from './states.js'

export function Dialog(props: { title: string; onClose: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null)
  useEffect(() => {
    const d = ref.current
    if (d !== null && !d.open) d.showModal()
    return () => d?.close()
  }, [])
  return (
    <dialog
      ref={ref}
      aria-label={props.title}
      onClose={props.onClose}
      onCancel={(e) => {
        e.preventDefault()
        props.onClose()
      }}
    >
      <header class="dialog-head">
        <h2>{props.title}</h2>
        <button type="button" class="link" aria-label="close" onClick={props.onClose}>
          ✕
        </button>
      </header>
      {props.children}
    </dialog>
  )
}

/** The row under a dialog's form: an error if the last try failed, Cancel, and the submit button. */
export function DialogActions(props: {
  onCancel: () => void
  submit: string
  busy: boolean
  error: Error | undefined
  cancel?: string
  danger?: boolean
  disabled?: boolean
  children?: ComponentChildren
}) {
  return (
    <>
      {props.error !== undefined && <ErrorBox error={props.error} />}
      <div class="actions">
        <button type="button" onClick={props.onCancel}>
          {props.cancel ?? 'Cancel'}
        </button>
        {props.children}
        <button
          type="submit"
          class={props.danger === true ? 'danger' : 'primary'}
          disabled={props.busy || props.disabled === true}
        >
          {props.submit}
        </button>
      </div>
    </>
  )
}
