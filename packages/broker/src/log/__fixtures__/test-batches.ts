/**
 * Test helper: valid RecordBatch v2 buffers of chosen shape, built with the real encoder
 * (encodeRecordBatch), so CRCs and headers are exactly what producers send. Storage never
 * looks at records, so values are filler bytes.
 */
import { encodeRecordBatch, type RecordInput } from '@sluice/protocol'

export interface TestBatchShape {
  records: number
  /** Bytes of each record value. */
  valueBytes: number
  /** maxTimestamp of the batch (records get timestamps baseTimestamp..timestamp). */
  timestamp: bigint
  partitionLeaderEpoch?: number
  baseOffset?: bigint
  /** Fill byte for values (makes batches distinguishable). */
  fill?: number
}

export function makeBatch(shape: TestBatchShape): Buffer {
  const n = Math.max(1, shape.records)
  const value = Buffer.alloc(shape.valueBytes, shape.fill ?? 0x61)
  const records: RecordInput[] = []
  for (let i = 0; i < n; i++) records.push({ value, timestamp: shape.timestamp - BigInt(n - 1 - i) })
  return encodeRecordBatch(records, {
    baseOffset: shape.baseOffset ?? 0n,
    partitionLeaderEpoch: shape.partitionLeaderEpoch ?? -1,
    baseTimestamp: shape.timestamp - BigInt(n - 1),
  })
}

/** Concatenates batches into one produce-style buffer. */
export function concatBatches(batches: readonly Buffer[]): Buffer {
  return Buffer.concat(batches)
}

/** A fresh temp dir under os.tmpdir(); the caller removes it. */
export async function makeTempDir(prefix = 'sluice-log-'): Promise<string> {
  const { mkdtemp } = await import('node:fs/promises')
  const { tmpdir } = await import('node:os')
  const { join } = await import('node:path')
  return await mkdtemp(join(tmpdir(), prefix))
}

/** One batch of keyed records (value null = tombstone), as a producer would send it. */
export function keyedBatch(
  entries: ReadonlyArray<readonly [string | null, string | null]>,
  timestamp: bigint,
  options: {
    producerId?: bigint
    producerEpoch?: number
    baseSequence?: number
    compression?: 'none' | 'gzip' | 'lz4' | 'zstd' | 'snappy'
  } = {},
): Buffer {
  const records: RecordInput[] = entries.map(([k, v]) => ({
    key: k === null ? null : Buffer.from(k),
    value: v === null ? null : Buffer.from(v),
    timestamp,
  }))
  return encodeRecordBatch(records, { baseTimestamp: timestamp, ...options })
}
