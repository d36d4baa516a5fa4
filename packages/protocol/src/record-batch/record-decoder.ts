/**
 * Decodes RecordBatch v2 buffers into DecodedBatch/DecodedRecord objects: a RecordSink over
 * walkRecordBatches (record-walker.ts), which holds the parser and its invariants (CRC before
 * records, bounds-checked varints, typed SluiceErrors, a truncated trailing batch skipped, views
 * not copies, LogAppendTime). Callers that build their own per-record object (the consumer) use
 * the walker directly instead.
 */
import type { BatchHeader } from './batch-header.js'
import type { DecodedBatch, DecodedRecord, RecordHeader } from './record-types.js'
import { walkRecordBatches, type RecordSink } from './record-walker.js'

class BatchCollector implements RecordSink {
  readonly batches: DecodedBatch[] = []
  private records: DecodedRecord[] = []

  batch(header: BatchHeader): boolean {
    this.records = []
    this.batches.push({ header, records: this.records })
    return true
  }

  record(offset: bigint, timestamp: bigint, key: Buffer | null, value: Buffer | null, headers: RecordHeader[]): void {
    this.records.push({ offset, timestamp, key, value, headers })
  }
}

/**
 * Decodes every complete batch in `buf`; a truncated trailing batch is skipped. Throws
 * CORRUPT_MESSAGE on a bad CRC unless verifyCrc is false.
 */
export function decodeRecordBatches(buf: Buffer, options: { verifyCrc?: boolean } = {}): DecodedBatch[] {
  const collector = new BatchCollector()
  walkRecordBatches(buf, collector, options)
  return collector.batches
}
