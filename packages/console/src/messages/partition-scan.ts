/**
 * Reads one partition's records in [from, end) for the message browser, with a consumer of its
 * own (no group, nothing committed). It stops at whichever comes first: `limit` matches (unless
 * `keepNewest`, which scans the whole range and keeps the last `limit`), `maxScan` records
 * read, the end of the range, or the signal (the HTTP client left, or the time bound passed).
 * `end` is the log end read when the request arrived, so a busy partition cannot keep a scan
 * running forever.
 */
import type { ConsumerMessage, SluiceClient } from '@sluice/client'
import { messageView, parseJsonText, utf8Text, type MessageView } from './record-view.js'
import { recordMatches, type RecordFilter } from './record-filter.js'

export interface PartitionScanRequest {
  readonly topic: string
  readonly partition: number
  readonly from: bigint
  readonly end: bigint
  readonly limit: number
  readonly maxScan: number
  readonly keepNewest: boolean
  readonly filter: RecordFilter | undefined
  readonly signal: AbortSignal
}

export interface PartitionScanResult {
  readonly messages: MessageView[]
  readonly scanned: number
  readonly matched: number
  /** Where a next page of this partition starts (`end` when the range was read to its end). */
  readonly nextOffset: bigint
}

function valueJson(m: ConsumerMessage): unknown {
  if (m.value === null) return undefined
  const text = utf8Text(m.value)
  return text === undefined ? undefined : parseJsonText(text)
}

export async function scanPartition(client: SluiceClient, r: PartitionScanRequest): Promise<PartitionScanResult> {
  const out: MessageView[] = []
  let scanned = 0
  let matched = 0
  let nextOffset = r.from
  if (r.from >= r.end || r.maxScan <= 0 || r.signal.aborted) return { messages: out, scanned, matched, nextOffset }
  const consumer = client.consumer({ maxWaitMs: 200, offsetReset: 'earliest' })
  try {
    await consumer.assign([{ topic: r.topic, partition: r.partition }])
    consumer.seek({ topic: r.topic, partition: r.partition, offset: r.from })
    for await (const m of consumer.messages({ signal: r.signal })) {
      if (m.offset >= r.end) {
        nextOffset = r.end
        break
      }
      scanned++
      nextOffset = m.offset + 1n
      if (r.filter === undefined || recordMatches(r.filter, m.key, m.value, () => valueJson(m))) {
        matched++
        out.push(messageView(m))
        if (r.keepNewest && out.length > r.limit) out.shift()
      }
      if (nextOffset >= r.end) break
      if (!r.keepNewest && out.length >= r.limit) break
      if (scanned >= r.maxScan) break
    }
  } finally {
    await consumer.close().catch(() => {})
  }
  return { messages: out, scanned, matched, nextOffset }
}
