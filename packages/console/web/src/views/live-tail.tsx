/**
 * Live tail: records pushed by the server (GET /api/topics/:name/tail, Server-Sent Events) as
 * they are written, newest first, keeping the last MAX_SHOWN. Pausing closes the stream (the
 * server stops reading); `skipped` events say how many records the server dropped because the
 * page was not keeping up.
 */
import { useEffect, useState } from 'preact/hooks'
import { ApiError, errorFields, query, seg } from '../api/client.js'
import { streamEvents } from '../api/sse.js'
import type { Message } from '../api/types.js'
import { PartitionSelect } from '../components/partition-select.js'
import { RecordTable } from '../components/record-table.js'
import { ErrorBox } from '../components/states.js'
import { fmtInt } from '../format.js'

const MAX_SHOWN = 200

export function LiveTail(props: { topic: string; partitions: number }) {
  const [partition, setPartition] = useState('')
  const [running, setRunning] = useState(true)
  const [records, setRecords] = useState<Message[]>([])
  const [skipped, setSkipped] = useState(0)
  const [error, setError] = useState<Error | undefined>(undefined)
  const [connected, setConnected] = useState(false)

  useEffect(() => {
    if (!running) return
    const abort = new AbortController()
    setError(undefined)
    const path = `/api/topics/${seg(props.topic)}/tail${query({ partition, from: 'end' })}`
    streamEvents(
      path,
      (e) => {
        // The server's first event (`ready`) says the stream is open; any event proves it.
        setConnected(true)
        if (e.event === 'record') {
          const m = JSON.parse(e.data) as Message
          setRecords((rs) => [m, ...rs].slice(0, MAX_SHOWN))
        } else if (e.event === 'skipped') {
          setSkipped((n) => n + ((JSON.parse(e.data) as { count?: number }).count ?? 0))
        } else if (e.event === 'error') {
          const f = errorFields(e.data)
          setError(f === undefined ? new Error(e.data) : new ApiError(200, f.code, f.message))
        }
      },
      abort.signal,
    )
      .then(() => {
        if (!abort.signal.aborted) setError(new Error('the server ended the tail; resume to start again'))
      })
      .catch((err: unknown) => {
        if (!abort.signal.aborted) setError(err as Error)
      })
      .finally(() => {
        if (!abort.signal.aborted) {
          setConnected(false)
          setRunning(false)
        }
      })
    return () => {
      abort.abort()
      setConnected(false)
    }
  }, [running, partition, props.topic])

  return (
    <>
      <div class="toolbar">
        <PartitionSelect partitions={props.partitions} value={partition} onChange={setPartition} />
        <button type="button" onClick={() => setRunning(!running)}>
          {running ? 'Pause' : 'Resume'}
        </button>
        <button type="button" onClick={() => setRecords([])}>
          Clear
        </button>
        <span class={`badge ${connected ? 'good' : 'neutral'}`} data-testid="tail-state">
          {connected ? 'live' : 'paused'}
        </span>
        <span class="muted">
          {fmtInt(records.length)} shown
          {skipped > 0 && ` · ${fmtInt(skipped)} skipped by the server (too fast to show)`}
        </span>
      </div>
      {error !== undefined && <ErrorBox error={error} what="live tail" />}
      <RecordTable label="live records" messages={records} empty="Waiting for new records…" />
    </>
  )
}
