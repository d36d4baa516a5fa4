/**
 * What a view shows instead of data: an error from the API (its code and message, with a retry
 * button), "not offered by this server" for a route that answers 404, and a loading line. A view
 * always renders one of these or its data, so the page is never blank.
 */
import type { ComponentChildren } from 'preact'
import { ApiError } from '../api/client.js'

export function ErrorBox(props: { error: Error; retry?: () => void; what?: string }) {
  const e = props.error
  if (e instanceof ApiError && e.unavailable)
    return (
      <div class="notice" role="status">
        <strong>Not available:</strong> this console server does not offer {props.what ?? 'this view'} (
        <code>{e.message}</code>).
      </div>
    )
  return (
    <div class="error" role="alert">
      <strong>{e instanceof ApiError ? e.code : 'Error'}</strong> {e.message}
      {props.retry !== undefined && (
        <button type="button" class="link" onClick={props.retry}>
          Retry
        </button>
      )}
    </div>
  )
}

export function Loading(props: { what?: string }) {
  return (
    <div class="loading" aria-busy="true">
      Loading {props.what ?? ''}…
    </div>
  )
}

/** Data, or the error, or loading: the three states of every view, in one place. */
export function Loaded<T>(props: {
  state: { data: T | undefined; error: Error | undefined; reload: () => void }
  what?: string
  children: (data: T) => ComponentChildren
}) {
  const { data, error, reload } = props.state
  return (
    <>
      {error !== undefined && <ErrorBox error={error} retry={reload} what={props.what} />}
      {data !== undefined ? props.children(data) : error === undefined && <Loading what={props.what} />}
    </>
  )
}

const GOOD = new Set(['up', 'running', 'stable', 'online', 'ok'])
const BAD = new Set(['down', 'failed', 'dead', 'offline', 'error', 'unassigned', 'pending_shutdown'])
const WARN = new Set([
  'paused',
  'restarting',
  'preparingrebalance',
  'completingrebalance',
  'rebalancing',
  'empty',
  'stopped',
  'starting',
])

/** A state word coloured by what it means for the operator: fine, attention, or broken. */
export function StateBadge(props: { state: string | null | undefined }) {
  const s = props.state ?? 'unknown'
  const k = s.toLowerCase()
  const tone = GOOD.has(k) ? 'good' : BAD.has(k) ? 'bad' : WARN.has(k) ? 'warn' : 'neutral'
  return <span class={`badge ${tone}`}>{s}</span>
}
