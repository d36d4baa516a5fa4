/**
 * Where a repartition record came from, written in its `sluice.src` header so the task reading
 * the repartition topic can tell a record written again by a re-run from a new one
 * (applied-positions.ts has the skip rule; docs/streams.md §3).
 *
 * Header value (ASCII): `1:<source partition>:<input offset>:<index>:<source topic>` — the
 * version, the input record's partition and offset in the task's source topic, and the record's
 * index among the records that one input record wrote to that repartition topic (0, 1, ...).
 * The topic is last, so any character it holds parses.
 *
 * Only records written while an input record is processed carry one (SinkRecord.source). Writes
 * of punctuations and of cache flushes at a commit have no input record: they go unstamped and
 * are never skipped (at-least-once). A task whose sub-topology has state stores writes no
 * stamps either: a re-run of its input need not write the same records in the same order (a
 * cache evicts at other points, a join sees its sides interleaved differently), and a skip rule
 * over positions is sound only when it does. Every record written to a repartition topic loses a
 * `sluice.src` header it inherited from its own input, so a stale stamp never travels on.
 */
import type { StreamHeader } from '../api/record.js'
import type { RecordSender, SinkRecord } from './task-contract.js'

export const STAMP_HEADER = 'sluice.src'

export interface RepartitionStamp {
  /** The source topic-partition of the task that wrote the record. */
  readonly topic: string
  readonly partition: number
  /** The offset of the input record whose processing wrote it. */
  readonly offset: bigint
  /** Its index among the records that input record wrote to this repartition topic. */
  readonly index: number
}

/** A position within one upstream source partition: the input offset, then the index. */
export interface StampPosition {
  readonly offset: bigint
  readonly index: number
}

/** Per upstream source partition (`<topic>\u0000<partition>`): the highest position applied. */
export type PartitionPositions = Map<string, StampPosition>

export function encodeStamp(s: RepartitionStamp): Buffer {
  return Buffer.from(`1:${s.partition}:${s.offset}:${s.index}:${s.topic}`, 'latin1')
}

const STAMP = /^1:(\d{1,10}):(\d{1,19}):(\d{1,10}):(.+)$/s

/** The stamp in a header value; undefined when it is not one this version reads (never throws). */
export function decodeStamp(value: Buffer | null): RepartitionStamp | undefined {
  if (value === null || value.length > 512) return undefined
  const m = STAMP.exec(value.toString('latin1'))
  if (m === null) return undefined
  const partition = Number(m[1])
  const index = Number(m[3])
  if (partition > 0x7fffffff || index > 0x7fffffff) return undefined
  return { topic: m[4]!, partition, offset: BigInt(m[2]!), index }
}

/** The stamp a record's headers carry (the last `sluice.src` header), if one reads. */
export function stampOf(headers: readonly StreamHeader[]): RepartitionStamp | undefined {
  for (let i = headers.length - 1; i >= 0; i--) {
    const h = headers[i]!
    if (h.key === STAMP_HEADER) return decodeStamp(h.value)
  }
  return undefined
}

/**
 * One task's sender: stamps its writes to repartition topics and passes everything else on
 * unchanged. Tasks run serially, and an input record's writes are contiguous, so the index is a
 * counter per repartition topic that starts again when the input record changes.
 */
export class RepartitionStamper implements RecordSender {
  private readonly counters = new Map<string, { source: string; next: number }>()

  constructor(
    private readonly inner: RecordSender,
    private readonly repartitionTopics: ReadonlySet<string>,
    /** False for sub-topologies with state stores (see above): their writes go unstamped. */
    private readonly stamps: boolean,
  ) {}

  send(record: SinkRecord): void {
    if (!this.repartitionTopics.has(record.topic)) {
      this.inner.send(record)
      return
    }
    const headers = record.headers.some((h) => h.key === STAMP_HEADER)
      ? record.headers.filter((h) => h.key !== STAMP_HEADER)
      : [...record.headers]
    const src = this.stamps ? record.source : undefined
    if (src !== undefined) {
      const id = `${src.topic}\u0000${src.partition}\u0000${src.offset}`
      let c = this.counters.get(record.topic)
      if (c === undefined || c.source !== id) {
        c = { source: id, next: 0 }
        this.counters.set(record.topic, c)
      }
      const stamp = { topic: src.topic, partition: src.partition, offset: src.offset, index: c.next++ }
      headers.push({ key: STAMP_HEADER, value: encodeStamp(stamp) })
    }
    this.inner.send({ ...record, headers })
  }
}
