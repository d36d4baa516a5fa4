/**
 * The message browser and producing one record. Browsing reads a topic's partitions (one, or
 * all in partition order) from a start chosen by `offset`, `timestamp` or `newest` (default: the
 * log start), up to `limit` records; with a filter (`q` or `jsonPath`, record-filter.ts) it
 * scans at most `maxScan` records (default 10,000) and answers how far it got: `scanned` of
 * `of` (the records in the range when the request arrived) and `matched`, so a page can say
 * "scanned N of M" instead of silently showing a partial result. `next` gives each partition's
 * offset to continue from. A scan stops when the HTTP client goes away, or after `timeoutMs`.
 */
import type { Producer, ProducerRecord, RecordHeader, SluiceClient } from '@sluice/client'
import { badRequest } from '../errors.js'
import { bigintParam, intParam, objectBody, optionalIntField } from '../http/query.js'
import { created, ok, type Route } from '../http/route.js'
import { logRanges, tpKey } from '../log-offsets.js'
import { scanPartition } from '../messages/partition-scan.js'
import { parseRecordFilter } from '../messages/record-filter.js'
import { partitionsOf } from '../messages/topic-partitions.js'
import type { MessageView } from '../messages/record-view.js'

export const DEFAULT_LIMIT = 50
export const MAX_LIMIT = 500
export const DEFAULT_MAX_SCAN = 10_000
export const MAX_MAX_SCAN = 1_000_000
const DEFAULT_SCAN_TIMEOUT_MS = 10_000

type StartAt =
  | { kind: 'offset'; offset: bigint }
  | { kind: 'timestamp'; timestamp: bigint }
  | { kind: 'newest' }
  | { kind: 'oldest' }

function startAtOf(q: URLSearchParams): StartAt {
  const offset = bigintParam(q, 'offset')
  const timestamp = bigintParam(q, 'timestamp')
  const newest = q.has('newest') && q.get('newest') !== 'false'
  if ([offset !== undefined, timestamp !== undefined, newest].filter(Boolean).length > 1)
    throw badRequest('give one of offset, timestamp or newest')
  if (offset !== undefined) return { kind: 'offset', offset }
  if (timestamp !== undefined) return { kind: 'timestamp', timestamp }
  return newest ? { kind: 'newest' } : { kind: 'oldest' }
}

function headersOf(v: unknown): RecordHeader[] | undefined {
  if (v === undefined || v === null) return undefined
  const entries: Array<[unknown, unknown]> = Array.isArray(v)
    ? v.map((h) => [(h as { key?: unknown })?.key, (h as { value?: unknown })?.value])
    : typeof v === 'object'
      ? Object.entries(v)
      : []
  if (!Array.isArray(v) && typeof v !== 'object')
    throw badRequest('headers must be an object or an array of {key, value}')
  return entries.map(([key, value]) => {
    if (typeof key !== 'string' || key === '') throw badRequest('every header needs a non-empty string key')
    if (value !== null && typeof value !== 'string')
      throw badRequest(`header ${key}: the value must be a string or null`)
    return { key, value: value === null ? null : Buffer.from(value, 'utf8') }
  })
}

/** A JSON object or array value is sent as its JSON text; strings as UTF-8. */
function payloadOf(v: unknown, name: string): string | null {
  if (v === null || v === undefined) return null
  if (typeof v === 'string') return v
  if (typeof v === 'object' || typeof v === 'number' || typeof v === 'boolean') return JSON.stringify(v)
  throw badRequest(`${name} must be a string, JSON or null`)
}

/** First offset at/after `timestamp` per readable partition (-1n when none). */
async function offsetsAt(
  client: SluiceClient,
  topic: string,
  partitions: readonly number[],
  ranges: ReadonlyMap<string, unknown>,
  timestamp: bigint,
): Promise<Map<number, bigint>> {
  const items = partitions.filter((p) => ranges.has(tpKey(topic, p))).map((partition) => ({ topic, partition }))
  if (items.length === 0) return new Map()
  const found = await client.admin().listOffsets(items, { timestamp })
  return new Map(found.map((o) => [o.partition, o.offset]))
}

export function messageRoutes(producer: () => Producer): Route[] {
  return [
    {
      method: 'GET',
      path: '/api/topics/:name/messages',
      mutates: false,
      handle: async ({ client, params, query, signal }) => {
        const topic = params.name!
        const limit = intParam(query, 'limit', { min: 1, max: MAX_LIMIT, fallback: DEFAULT_LIMIT })!
        const maxScan = intParam(query, 'maxScan', { min: 1, max: MAX_MAX_SCAN, fallback: DEFAULT_MAX_SCAN })!
        const timeoutMs = intParam(query, 'timeoutMs', { min: 100, max: 120_000, fallback: DEFAULT_SCAN_TIMEOUT_MS })!
        const filter = parseRecordFilter(query.get('q'), query.get('jsonPath'))
        const startAt = startAtOf(query)
        const { description, partitions } = await partitionsOf(client, topic, intParam(query, 'partition', { min: 0 }))
        const ranges = await logRanges(client, [description])
        const byTime =
          startAt.kind === 'timestamp'
            ? await offsetsAt(client, topic, partitions, ranges, startAt.timestamp)
            : undefined
        // Without a filter `newest` reads the last `limit` records; with one, the last maxScan.
        const window = BigInt(filter === undefined ? limit : maxScan)
        const scanSignal = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)])
        const messages: MessageView[] = []
        const next: Record<string, bigint> = {}
        let scanned = 0
        let matched = 0
        let of = 0n
        const ends = new Map<number, bigint>()
        // Partitions without a leader cannot be read now: named in the answer, not waited for.
        const unavailable: number[] = []
        for (const partition of partitions) {
          const range = ranges.get(tpKey(topic, partition))
          if (range === undefined) {
            unavailable.push(partition)
            continue
          }
          let from: bigint
          if (startAt.kind === 'offset') from = startAt.offset
          else if (startAt.kind === 'timestamp') {
            const at = byTime?.get(partition) ?? -1n
            from = at < 0n ? range.end : at
          } else if (startAt.kind === 'newest') from = range.end - window
          else from = range.start
          if (from < range.start) from = range.start
          if (from > range.end) from = range.end
          of += range.end - from
          ends.set(partition, range.end)
          const r = await scanPartition(client, {
            topic,
            partition,
            from,
            end: range.end,
            limit: startAt.kind === 'newest' ? limit : limit - messages.length,
            maxScan: maxScan - scanned,
            keepNewest: startAt.kind === 'newest',
            filter,
            signal: scanSignal,
          })
          messages.push(...r.messages)
          scanned += r.scanned
          matched += r.matched
          next[String(partition)] = r.nextOffset
          if (startAt.kind !== 'newest' && messages.length >= limit) break
          if (scanned >= maxScan) break
        }
        if (startAt.kind === 'newest') {
          messages.sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0))
          messages.splice(0, Math.max(0, messages.length - limit))
        }
        return ok({
          topic,
          messages,
          scanned,
          matched,
          of,
          // Read to the end of every partition's range (gaps left by compaction included).
          complete:
            unavailable.length === 0 && partitions.every((p) => (next[String(p)] ?? -1n) >= (ends.get(p) ?? 0n)),
          unavailablePartitions: unavailable,
          cancelled: scanSignal.aborted,
          next,
        })
      },
    },
    {
      method: 'POST',
      path: '/api/topics/:name/messages',
      mutates: true,
      handle: async ({ client, params, body }) => {
        const o = objectBody(body)
        if (!('value' in o)) throw badRequest('value is required (a string, JSON, or null for a tombstone)')
        const partition = optionalIntField(o, 'partition', 0)
        const headers = headersOf(o.headers)
        // The producer would retry an unknown topic until its delivery timeout: answer 404 now.
        await partitionsOf(client, params.name!, partition)
        const record: ProducerRecord = {
          key: payloadOf(o.key, 'key'),
          value: payloadOf(o.value, 'value'),
          ...(headers !== undefined ? { headers } : {}),
          ...(partition !== undefined ? { partition } : {}),
        }
        const [meta] = await producer().send({ topic: params.name!, records: [record] })
        return created({
          topic: meta!.topic,
          partition: meta!.partition,
          offset: meta!.offset,
          timestamp: meta!.timestamp,
        })
      },
    },
  ]
}
