/**
 * Message browser (/topics/:name/messages): a query form, the records found, and how far the
 * server got ("scanned N of M, K matched"), so a bounded filter never looks like a complete
 * answer. The request runs in the background (the page stays usable) and Cancel aborts it;
 * aborting the HTTP request is what stops the scan on the server. A second tab tails the topic.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { ApiError, api, query, seg } from '../api/client.js'
import type { MessagePage, TopicDetail } from '../api/types.js'
import { RecordTable } from '../components/record-table.js'
import { ErrorBox } from '../components/states.js'
import { fmtInt } from '../format.js'
import { href, setSearch, useLocation } from '../router.js'
import { useApi } from '../use-api.js'
import { LiveTail } from './live-tail.js'
import { apiParams, type BrowseQuery, MessageForm, queryFromUrl, queryToUrl } from './message-form.js'

function ScanStatus(props: { page: MessagePage }) {
  const p = props.page
  return (
    <p class="scan-status" role="status" data-testid="scan-status">
      {p.messages.length} shown · scanned {fmtInt(p.scanned)} of {fmtInt(p.of)}
      {p.matched !== p.scanned && ` · ${fmtInt(p.matched)} matched`}
      {p.cancelled && <span class="badge warn">stopped early</span>}
      {!p.complete && !p.cancelled && <span class="badge neutral">more to read</span>}
      {p.unavailablePartitions.length > 0 && (
        <span class="badge bad">partitions without a leader: {p.unavailablePartitions.join(', ')}</span>
      )}
    </p>
  )
}

function Browse(props: { topic: string; partitions: number }) {
  const loc = useLocation()
  const [form, setForm] = useState<BrowseQuery>(() => queryFromUrl(loc.search))
  const [page, setPage] = useState<MessagePage | undefined>(undefined)
  // The query the shown page answers (the form may have changed since).
  const [pageQuery, setPageQuery] = useState<BrowseQuery>(form)
  const [error, setError] = useState<Error | undefined>(undefined)
  const [running, setRunning] = useState(false)
  const [cancelled, setCancelled] = useState(false)
  const inflight = useRef<AbortController | null>(null)

  const run = async (q: BrowseQuery): Promise<void> => {
    inflight.current?.abort()
    const abort = new AbortController()
    inflight.current = abort
    setRunning(true)
    setCancelled(false)
    setError(undefined)
    setSearch(queryToUrl(q))
    try {
      const path = `/api/topics/${seg(props.topic)}/messages${query(apiParams(q))}`
      const r = await api<MessagePage>(path, { signal: abort.signal })
      if (!abort.signal.aborted) {
        setPage(r)
        setPageQuery(q)
      }
    } catch (err) {
      if (abort.signal.aborted) return
      setError(err as Error)
    } finally {
      if (inflight.current === abort) {
        inflight.current = null
        setRunning(false)
      }
    }
  }
  const cancel = (): void => {
    inflight.current?.abort()
    inflight.current = null
    setRunning(false)
    setCancelled(true)
  }
  useEffect(() => {
    void run(form)
    return () => inflight.current?.abort()
  }, [])
  // Paging on: for one partition the server says where the next read starts ("newest" reads
  // the end, so it has no next page).
  const nextOffset = pageQuery.partition === '' || page === undefined ? undefined : page.next[pageQuery.partition]
  const continueAt =
    nextOffset !== undefined && !page!.complete && pageQuery.start !== 'newest' ? String(nextOffset) : undefined

  return (
    <>
      <MessageForm
        value={form}
        partitions={props.partitions}
        running={running}
        onChange={setForm}
        onRun={() => void run(form)}
        onCancel={cancel}
      />
      {cancelled && (
        <div class="notice" role="status">
          Search cancelled; the server stopped scanning.
        </div>
      )}
      {error !== undefined && <ErrorBox error={error} retry={() => void run(form)} />}
      {running && (
        <p class="muted" aria-busy="true">
          Scanning on the server…
        </p>
      )}
      {page !== undefined && (
        <>
          <ScanStatus page={page} />
          <RecordTable
            label="messages"
            // "Newest" reads the end of the log: shown newest first, as a tail is read.
            messages={pageQuery.start === 'newest' ? [...page.messages].reverse() : page.messages}
            empty={
              form.filterKind !== 'none' && form.filter !== ''
                ? 'No record matched in the scanned range.'
                : 'No records.'
            }
          />
          {continueAt !== undefined && (
            <div class="pager">
              <button
                type="button"
                onClick={() => {
                  const next = { ...pageQuery, start: 'offset' as const, offset: continueAt }
                  setForm(next)
                  void run(next)
                }}
              >
                Next records from offset {fmtInt(continueAt)} ›
              </button>
            </div>
          )}
        </>
      )}
    </>
  )
}

export function MessagesView(props: { name: string }) {
  const topic = useApi<TopicDetail>(`/api/topics/${seg(props.name)}`)
  const [tab, setTab] = useState<'browse' | 'tail'>('browse')
  const partitions = topic.data?.partitions ?? 0
  return (
    <section>
      <div class="crumbs">
        <a href="/topics">Topics</a> / <a href={href.topic(props.name)}>{props.name}</a> /
      </div>
      <h1>Messages in {props.name}</h1>
      {topic.error !== undefined && <ErrorBox error={topic.error} retry={topic.reload} what={`topic ${props.name}`} />}
      <div class="tabs" role="tablist">
        <button type="button" role="tab" aria-selected={tab === 'browse'} onClick={() => setTab('browse')}>
          Browse
        </button>
        <button type="button" role="tab" aria-selected={tab === 'tail'} onClick={() => setTab('tail')}>
          Live tail
        </button>
      </div>
      {topic.error instanceof ApiError && topic.error.status === 404 ? null : tab === 'browse' ? (
        <Browse topic={props.name} partitions={partitions} />
      ) : (
        <LiveTail topic={props.name} partitions={partitions} />
      )}
    </section>
  )
}
