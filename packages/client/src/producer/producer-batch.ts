/**
 * One open or in-flight RecordBatch of a single partition, plus the promise its records'
 * send() calls wait on. A batch is encoded once (the first time it is sent) and the same bytes
 * are resent on retries, so a retried batch is byte-identical to the first try (for idempotent
 * producers that includes its producer id, epoch and sequence: the broker recognises it).
 */
import type { RecordInput, SluiceError } from '@sluice/protocol'

export interface BatchResult {
  /** Offset of the first record; -1n for acks=0. */
  baseOffset: bigint
  /** Broker append time when the topic uses LogAppendTime, else -1n. */
  logAppendTimeMs: bigint
}

export class ProducerBatch {
  readonly records: RecordInput[] = []
  sizeBytes = 0
  /** No more records may be added (full, or taken by the sender). */
  closed = false
  attempts = 0
  /** Not to be sent before this time (backoff after a retriable error). */
  retryAtMs = 0
  encoded: Buffer | undefined
  lastError: SluiceError | undefined
  /**
   * Idempotent producers: the identity and sequence stamped into the batch when it was first
   * drained; never changed afterwards, so every retry is byte-identical. `sequenceOrder` is a
   * per-producer counter in assignment order, used to re-queue retries in sequence order.
   */
  producerId = -1n
  producerEpoch = -1
  baseSequence = -1
  sequenceOrder: number | undefined
  /** Records in the batch (records[] is emptied once encoded). */
  recordCount = 0
  readonly done: Promise<BatchResult>
  private settle: { resolve: (r: BatchResult) => void; reject: (e: unknown) => void } | undefined

  /** `topic \0 partition`, built once per batch for the sender's per-partition bookkeeping. */
  readonly key: string

  constructor(
    readonly topic: string,
    readonly partition: number,
    readonly createdMs: number,
  ) {
    this.key = `${topic}\u0000${partition}`
    this.done = new Promise<BatchResult>((resolve, reject) => {
      this.settle = { resolve, reject }
    })
    // Callers attach their own handlers; this one only keeps an unobserved failure from
    // becoming an unhandled rejection.
    this.done.catch(() => {})
  }

  get settled(): boolean {
    return this.settle === undefined
  }

  complete(result: BatchResult): void {
    const s = this.settle
    this.settle = undefined
    s?.resolve(result)
  }

  fail(err: unknown): void {
    const s = this.settle
    this.settle = undefined
    s?.reject(err)
  }
}

/** Bytes a record adds to a batch, roughly: payloads plus varint framing. */
export function estimateRecordBytes(r: RecordInput): number {
  let n = 21 + (r.key?.length ?? 0) + (r.value?.length ?? 0)
  const headers = r.headers
  if (headers !== undefined) for (const h of headers) n += 10 + Buffer.byteLength(h.key) + (h.value?.length ?? 0)
  return n
}
