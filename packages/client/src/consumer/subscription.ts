/**
 * What the consumer is assigned and where it stands in each partition. Shared by the fetcher
 * (network side: fetch positions, buffers, errors) and the delivery side (iterators and run()).
 *
 * Per partition:
 * - `fetchOffset`: next offset to fetch; undefined while a seek ('beginning', 'end', timestamp)
 *   is being resolved.
 * - `position`: next offset to hand to the application; moves as messages are delivered.
 * - `generation`: bumped by every seek; fetch and ListOffsets answers for an older generation
 *   are dropped, so a seek is never undone by a response already on its way.
 * - `fetched`: fetched, not yet delivered, as raw batches per response (fetched-records.ts),
 *   preceded by `buffered`: decoded messages a paused delivery put back. The fetcher fetches
 *   ahead of delivery while the consumer's buffered bytes stay under maxBufferedBytes.
 * Single-threaded (event loop); `notify()` wakes everything waiting on `changed()`.
 */
import { SluiceError, type BatchHeader } from '@sluice/protocol'
import type { ConsumerMessage, SeekOffset } from './consumer-types.js'

/**
 * One fetch response's complete batches for one partition, not decoded yet (scanned and
 * delivered by fetched-records.ts).
 */
export interface FetchedRecords {
  /** Whole batches only (a trailing partial batch is cut off). */
  records: Buffer
  /** The headers of `records`' batches, in order, read when the response arrived. */
  batches: BatchHeader[]
  /** How many of `batches` were delivered already (a chunk is delivered in slices). */
  taken: number
  /** The fetch offset: records below it are dropped (a response starts at a batch boundary). */
  fromOffset: bigint
  highWatermark: bigint
}

export interface PartitionState {
  readonly topic: string
  readonly partition: number
  readonly key: string
  fetchOffset: bigint | undefined
  position: bigint | undefined
  /** A seek target waiting for ListOffsets. */
  pendingReset: Exclude<SeekOffset, bigint> | undefined
  resetting: boolean
  /**
   * After a timestamp seek: leading records older than this are skipped. The broker may resolve
   * a timestamp to the start of the batch containing the match rather than the record itself.
   */
  skipBeforeTimestamp: bigint | undefined
  generation: number
  paused: boolean
  buffered: ConsumerMessage[]
  fetched: FetchedRecords[]
  highWatermark: bigint
  /** An error that stopped the partition until the next seek; surfaced to the application once. */
  error: SluiceError | undefined
  errorReported: boolean
  stopped: boolean
  retryAtMs: number
  fetching: boolean
}

/** Throws a TypeError unless `o` is a seek target: an offset >= 0, 'beginning', 'end' or { timestamp }. */
export function assertSeekOffset(o: SeekOffset): void {
  const ok =
    typeof o === 'bigint'
      ? o >= 0n
      : o === 'beginning' ||
        o === 'end' ||
        (typeof o === 'object' && o !== null && (typeof o.timestamp === 'number' || typeof o.timestamp === 'bigint'))
  if (!ok)
    throw new TypeError(`seek offset must be a bigint >= 0, 'beginning', 'end' or { timestamp }, got ${String(o)}`)
}

export function tpKey(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`
}

export class SubscriptionState {
  readonly partitions = new Map<string, PartitionState>()
  private waiters: Array<() => void> = []

  add(topic: string, partition: number): PartitionState {
    const key = tpKey(topic, partition)
    const existing = this.partitions.get(key)
    if (existing !== undefined) return existing
    const s: PartitionState = {
      topic,
      partition,
      key,
      fetchOffset: undefined,
      position: undefined,
      pendingReset: undefined,
      resetting: false,
      skipBeforeTimestamp: undefined,
      generation: 0,
      paused: false,
      buffered: [],
      fetched: [],
      highWatermark: -1n,
      error: undefined,
      errorReported: false,
      stopped: false,
      retryAtMs: 0,
      fetching: false,
    }
    this.partitions.set(key, s)
    return s
  }

  get(topic: string, partition: number): PartitionState | undefined {
    return this.partitions.get(tpKey(topic, partition))
  }

  /** The state of an assigned partition; INVALID_ARGUMENT when it is not assigned. */
  mustGet(tp: { topic: string; partition: number }): PartitionState {
    const s = tp !== null && typeof tp === 'object' ? this.get(tp.topic, tp.partition) : undefined
    if (s === undefined)
      throw new SluiceError(
        'INVALID_ARGUMENT',
        `${String(tp?.topic)}/${String(tp?.partition)} is not assigned to this consumer`,
      )
    return s
  }

  setPaused(tps: ReadonlyArray<{ topic: string; partition: number }>, paused: boolean): void {
    for (const tp of tps) this.mustGet(tp).paused = paused
    this.notify()
  }

  /**
   * Waits until the partition's position is known (a seek to 'beginning', 'end' or a timestamp
   * resolves in the background); throws the partition's error, or INVALID_ARGUMENT when it
   * stopped being assigned (`gone` names how). `assertOpen` is checked on every wake-up.
   */
  async positionOf(s: PartitionState, assertOpen: () => void, gone: string): Promise<bigint> {
    for (;;) {
      assertOpen()
      if (s.position !== undefined) return s.position
      if (s.error !== undefined) throw s.error
      if (this.partitions.get(s.key) !== s)
        throw new SluiceError('INVALID_ARGUMENT', `${s.topic}/${s.partition} was ${gone}`)
      await this.changed(1000)
    }
  }

  /** Moves the partition to `offset` (a number) or schedules a lookup, dropping buffered data. */
  seek(s: PartitionState, offset: SeekOffset): void {
    s.generation++
    s.buffered = []
    s.fetched = []
    s.error = undefined
    s.errorReported = false
    s.stopped = false
    s.retryAtMs = 0
    s.skipBeforeTimestamp = undefined
    if (typeof offset === 'bigint') {
      s.pendingReset = undefined
      s.fetchOffset = offset
      s.position = offset
    } else {
      s.pendingReset = offset
      s.fetchOffset = undefined
      s.position = undefined
    }
    this.notify()
  }

  notify(): void {
    const w = this.waiters
    this.waiters = []
    for (const f of w) f()
  }

  /** Resolves at the next notify() or after `timeoutMs`. */
  async changed(timeoutMs?: number): Promise<void> {
    await new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined
      const done = (): void => {
        clearTimeout(timer)
        resolve()
      }
      this.waiters.push(done)
      if (timeoutMs !== undefined) timer = setTimeout(done, Math.max(0, timeoutMs))
    })
  }
}
