/**
 * The message browser's query form: where to start (newest, oldest, an offset or a time), which
 * partition, how many, and the server-side filter (key/value substring or JSON path) with its
 * scan bound. Its state round-trips through the URL so a search can be shared or reloaded.
 */

import { PartitionSelect } from '../components/partition-select.js'

export interface BrowseQuery {
  readonly partition: string
  readonly start: 'newest' | 'oldest' | 'offset' | 'timestamp'
  readonly offset: string
  readonly time: string
  readonly limit: string
  readonly filterKind: 'none' | 'substring' | 'jsonPath'
  readonly filter: string
  readonly maxScan: string
}

export const DEFAULT_QUERY: BrowseQuery = {
  partition: '',
  start: 'newest',
  offset: '0',
  time: '',
  limit: '50',
  filterKind: 'none',
  filter: '',
  maxScan: '10000',
}

export function queryFromUrl(s: URLSearchParams): BrowseQuery {
  const pick = <K extends keyof BrowseQuery>(k: K): BrowseQuery[K] => (s.get(k) ?? DEFAULT_QUERY[k]) as BrowseQuery[K]
  return {
    partition: pick('partition'),
    start: pick('start'),
    offset: pick('offset'),
    time: pick('time'),
    limit: pick('limit'),
    filterKind: pick('filterKind'),
    filter: pick('filter'),
    maxScan: pick('maxScan'),
  }
}

/** Only the fields that differ from the defaults go into the URL. */
export function queryToUrl(q: BrowseQuery): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {}
  for (const k of Object.keys(DEFAULT_QUERY) as (keyof BrowseQuery)[])
    out[k] = q[k] === DEFAULT_QUERY[k] ? undefined : q[k]
  return out
}

/** The API query string for a form state; the filter is sent as data, never evaluated. */
export function apiParams(q: BrowseQuery): Record<string, string | number | undefined> {
  const filtered = q.filterKind !== 'none' && q.filter !== ''
  return {
    partition: q.partition === '' ? undefined : q.partition,
    offset: q.start === 'offset' ? q.offset : undefined,
    timestamp: q.start === 'timestamp' && q.time !== '' ? new Date(q.time).getTime() : undefined,
    newest: q.start === 'newest' ? 'true' : undefined,
    limit: q.limit,
    q: filtered && q.filterKind === 'substring' ? q.filter : undefined,
    jsonPath: filtered && q.filterKind === 'jsonPath' ? q.filter : undefined,
    maxScan: filtered ? q.maxScan : undefined,
    // A filtered scan may take a while; the Cancel button ends it sooner.
    timeoutMs: filtered ? 60_000 : undefined,
  }
}

export function MessageForm(props: {
  value: BrowseQuery
  partitions: number
  running: boolean
  onChange: (q: BrowseQuery) => void
  onRun: () => void
  onCancel: () => void
}) {
  const q = props.value
  const set = (patch: Partial<BrowseQuery>): void => props.onChange({ ...q, ...patch })
  return (
    <form
      class="card form"
      aria-label="browse messages"
      onSubmit={(e) => {
        e.preventDefault()
        props.onRun()
      }}
    >
      <div class="row">
        <PartitionSelect partitions={props.partitions} value={q.partition} onChange={(v) => set({ partition: v })} />
        <label>
          Start at
          <select
            name="start"
            value={q.start}
            onChange={(e) => set({ start: e.currentTarget.value as BrowseQuery['start'] })}
          >
            <option value="newest">newest</option>
            <option value="oldest">oldest</option>
            <option value="offset">offset</option>
            <option value="timestamp">time</option>
          </select>
        </label>
        {q.start === 'offset' && (
          <label>
            Offset
            <input
              name="offset"
              inputMode="numeric"
              value={q.offset}
              onInput={(e) => set({ offset: e.currentTarget.value })}
            />
          </label>
        )}
        {q.start === 'timestamp' && (
          <label>
            Time
            <input
              name="time"
              type="datetime-local"
              step="1"
              value={q.time}
              onInput={(e) => set({ time: e.currentTarget.value })}
            />
          </label>
        )}
        <label>
          Limit
          <input
            name="limit"
            type="number"
            min={1}
            max={500}
            value={q.limit}
            onInput={(e) => set({ limit: e.currentTarget.value })}
          />
        </label>
      </div>
      <div class="row">
        <label>
          Filter
          <select
            name="filterKind"
            value={q.filterKind}
            onChange={(e) => set({ filterKind: e.currentTarget.value as BrowseQuery['filterKind'] })}
          >
            <option value="none">none</option>
            <option value="substring">key or value contains</option>
            <option value="jsonPath">JSON path</option>
          </select>
        </label>
        {q.filterKind !== 'none' && (
          <>
            <label style={{ flex: 1 }}>
              {q.filterKind === 'jsonPath' ? 'Path (e.g. $.user.id=42)' : 'Text'}
              <input
                name="filter"
                data-search
                value={q.filter}
                onInput={(e) => set({ filter: e.currentTarget.value })}
                placeholder={q.filterKind === 'jsonPath' ? '$.status="failed"' : 'order-1234'}
              />
            </label>
            <label>
              Scan at most
              <input
                name="maxScan"
                type="number"
                min={1}
                value={q.maxScan}
                onInput={(e) => set({ maxScan: e.currentTarget.value })}
              />
            </label>
          </>
        )}
        <div class="actions">
          <button type="submit" class="primary" disabled={props.running}>
            {props.running ? 'Searching…' : 'Search'}
          </button>
          {props.running && (
            <button type="button" onClick={props.onCancel}>
              Cancel
            </button>
          )}
        </div>
      </div>
    </form>
  )
}
