/**
 * The consumer's decode path (issue 4, R4): walkRecordBatches with a sink that builds one
 * message-shaped object per record, against decodeRecordBatches (DecodedBatch + DecodedRecord,
 * which a consumer would then copy into its own message), and walkBatchLazily (issue 16: a view per
 * record whose fields are decoded when read). Same batch as record-codec.bench.ts:
 * 1,000 records of 100-byte values, no key, no headers. Records/s = hz x 1,000.
 */
import { bench, describe } from 'vitest'
import {
  decodeRecordBatches,
  encodeRecordBatch,
  frameBatchAt,
  readRecordValue,
  walkBatchLazily,
  walkRecordBatches,
  type RecordPositionSink,
  type RecordHeader,
  type RecordInput,
  type RecordSink,
} from '../src/index.js'

const value = Buffer.alloc(100, 0x61)
const ts = BigInt(Date.now())
const records: RecordInput[] = Array.from({ length: 1000 }, (_, i) => ({ value, timestamp: ts + BigInt(i >> 4) }))
const batch = encodeRecordBatch(records, { baseOffset: 1_000_000n })

interface Message {
  topic: string
  partition: number
  offset: bigint
  timestamp: bigint
  key: Buffer | null
  value: Buffer | null
  headers: RecordHeader[]
}

class MessageSink implements RecordSink {
  readonly out: Message[] = []
  batch(): boolean {
    return true
  }
  record(offset: bigint, timestamp: bigint, key: Buffer | null, value: Buffer | null, headers: RecordHeader[]): void {
    this.out.push({ topic: 't', partition: 0, offset, timestamp, key, value, headers })
  }
}

/** The consumer's path since issue 16: a lazy view per record (here its fields), value read. */
class LazyMessage {
  constructor(
    readonly data: Buffer,
    readonly keyPos: number,
    readonly o: number | bigint,
    readonly t: number | bigint,
  ) {}
  private v: Buffer | null | undefined = undefined
  get value(): Buffer | null {
    if (this.v === undefined) this.v = readRecordValue(this.data, this.keyPos)
    return this.v
  }
}

class LazySink implements RecordPositionSink {
  readonly out: LazyMessage[] = []
  batch(): boolean {
    return true
  }
  record(data: Buffer, keyPos: number, offset: number | bigint, timestamp: number | bigint): void {
    this.out.push(new LazyMessage(data, keyPos, offset, timestamp))
  }
}

const header = frameBatchAt(batch, 0)!

describe('consumer decode 1,000 x 100 B into messages', () => {
  bench('decodeRecordBatches, then one message per record', () => {
    const out: Message[] = []
    for (const b of decodeRecordBatches(batch)) {
      for (const r of b.records)
        out.push({
          topic: 't',
          partition: 0,
          offset: r.offset,
          timestamp: r.timestamp,
          key: r.key,
          value: r.value,
          headers: r.headers,
        })
    }
  })
  bench('walkRecordBatches, message built by the sink', () => {
    walkRecordBatches(batch, new MessageSink())
  })
  bench('walkBatchLazily, a lazy view per record, no field read', () => {
    walkBatchLazily(batch, header, new LazySink())
  })
  bench('walkBatchLazily, a lazy view per record, value read', () => {
    const sink = new LazySink()
    walkBatchLazily(batch, header, sink)
    let bytes = 0
    for (const m of sink.out) bytes += m.value?.length ?? 0
    if (bytes !== 100_000) throw new Error(`read ${bytes} bytes`)
  })
  bench('walkRecordBatches, every record below minOffset (parsed, none built)', () => {
    walkRecordBatches(batch, new MessageSink(), { minOffset: 2_000_000n })
  })
})
