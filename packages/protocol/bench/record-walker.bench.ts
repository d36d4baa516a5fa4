/**
 * The consumer's decode path (issue 4, R4): walkRecordBatches with a sink that builds one
 * message-shaped object per record, against decodeRecordBatches (DecodedBatch + DecodedRecord,
 * which a consumer would then copy into its own message). Same batch as record-codec.bench.ts:
 * 1,000 records of 100-byte values, no key, no headers. Records/s = hz x 1,000.
 */
import { bench, describe } from 'vitest'
import {
  decodeRecordBatches,
  encodeRecordBatch,
  walkRecordBatches,
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
  bench('walkRecordBatches, every record below minOffset (parsed, none built)', () => {
    walkRecordBatches(batch, new MessageSink(), { minOffset: 2_000_000n })
  })
})
