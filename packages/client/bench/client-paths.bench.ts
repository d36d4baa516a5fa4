/**
 * The SDK's own per-record work (issue 4, BENCHMARKS.md R2-R5), without a network:
 * - producer: send() of 1,000 x 100 B keyless records through partitioning, the accumulator and
 *   the per-record RecordMetadata, with a stand-in sender that acknowledges every batch at once
 *   (encoding is measured by the protocol benchmarks, not here);
 * - consumer: one fetch response (10 batches of 1,000 x 100 B, ~1 MB) applied by the fetcher
 *   and handed out as ConsumerMessages, the way the consumer delivers it.
 * Records/s = hz x 1,000 (producer) or hz x 10,000 (consumer). 3 s per benchmark: on the shared
 * machine shorter runs were dominated by a few stalls.
 */
import { encodeRecordBatch, type RecordInput, type wire } from '@sluice/protocol'
import { bench, describe } from 'vitest'
import type { ConsumerMessage } from '../src/consumer/consumer-types.js'
import { Fetcher } from '../src/consumer/fetcher.js'
import { SubscriptionState, type PartitionState } from '../src/consumer/subscription.js'
import { silentLogger } from '../src/logger.js'
import type { MetadataCache } from '../src/network/metadata-cache.js'
import type { ConnectionPool } from '../src/network/connection-pool.js'
import { DEFAULT_RETRY } from '../src/options.js'
import { producerWithStandInSender } from '../src/__fixtures__/stand-in-sender.js'

// ---- producer ----

// Stand-in sender: every ready batch is acknowledged in the next turn (nothing encoded or sent).
const { producer } = producerWithStandInSender({ acks: 1, lingerMs: 5, batchBytes: 256 * 1024 }, 6)
const value = Buffer.alloc(100, 0x61)
const chunk = Array.from({ length: 1000 }, () => ({ value }))

// ---- consumer ----

const ts = BigInt(Date.now())
const records: RecordInput[] = Array.from({ length: 1000 }, () => ({ value, timestamp: ts }))
const batches: Buffer[] = []
for (let i = 0; i < 10; i++) {
  const b = encodeRecordBatch(records)
  b.writeBigInt64BE(BigInt(i * 1000), 0) // baseOffset, as the leader stamps it
  batches.push(b)
}
const fetched = Buffer.concat(batches)
const subs = new SubscriptionState()
// The fetcher only applies a response here; it never asks the cache.
const cache = {} as unknown as MetadataCache
const fetcher = new Fetcher(
  subs,
  cache,
  {} as unknown as ConnectionPool,
  {
    maxWaitMs: 500,
    minBytes: 1,
    maxBytes: 50 << 20,
    maxPartitionBytes: 1 << 20,
    maxBufferedBytes: 50 << 20,
    isolationLevel: 0,
    offsetReset: 'none',
    requestTimeoutMs: 30_000,
    clientId: 'bench',
    retry: DEFAULT_RETRY,
  } as ConstructorParameters<typeof Fetcher>[3],
  silentLogger,
)
const fetcherInternals = fetcher as unknown as {
  onPartition: (s: PartitionState, offset: bigint, p: wire.PartitionFetchResponse__Output) => void
}
const response = {
  partition: 0,
  error_code: 0,
  high_watermark: '10000',
  records: fetched,
} as unknown as wire.PartitionFetchResponse__Output
// Trees before the lazy decode (fetched-records.ts) decode at onPartition into s.buffered.
const lazy = (await import('../src/consumer/fetched-records.js').catch(() => undefined)) as
  | { takeBuffered: (s: PartitionState) => { messages: ConsumerMessage[] } | undefined }
  | undefined

function fetchAndDeliver(): number {
  const s = subs.add('t', 0)
  subs.seek(s, 0n)
  fetcherInternals.onPartition(s, 0n, response)
  let n = 0
  if (lazy === undefined) {
    const messages = s.buffered
    s.buffered = []
    n = messages.length
  } else {
    for (let taken = lazy.takeBuffered(s); taken !== undefined; taken = lazy.takeBuffered(s)) n += taken.messages.length
  }
  if (n !== 10_000) throw new Error(`delivered ${n} records, expected 10,000`)
  return n
}

describe('producer send path', () => {
  bench(
    'send() 1,000 x 100 B, keyless sticky, 6 partitions',
    async () => {
      await producer.send({ topic: 't', records: chunk })
    },
    { time: 3000 },
  )
})

describe('consumer fetch path', () => {
  bench(
    'apply a ~1 MB fetch response (10 x 1,000 x 100 B) and hand out the messages',
    () => {
      fetchAndDeliver()
    },
    { time: 3000 },
  )
})
