/**
 * One partition replica's idempotent-producer state, tied to its PartitionLog.
 *
 * Invariants:
 * - A plain state owner: the replica (Partition) asks it, inside the log's single-writer task,
 *   to load (`loadIfStale`), to check a leader append (`checkLeaderAppend`: duplicate, or fine,
 *   or an error) and, once the log wrote the batches, to record them (`recordLeaderAppend`);
 *   replicated batches are recorded from their headers (`recordReplicated`: no record parsing,
 *   no checks, the leader decided), so a follower that becomes leader dedups retries. It never
 *   writes the log itself.
 * - `stateEnd` is the log end offset the table reflects. Before every append it must equal the
 *   log's end offset; otherwise the log changed without us (truncation by the replication layer,
 *   a failed write) and the state is rebuilt from the log before going on. So no state entry
 *   ever points at offsets that are no longer in the log.
 * - Lazy: nothing is read until the first append after the replica was opened (idle partitions
 *   cost nothing). The rebuild takes the snapshot file (written at clean close and by the
 *   periodic sweep, producer-state-snapshot.ts) if it is not above the log end, then replays the
 *   batch headers after it through PartitionLog.read. Without a usable snapshot (crash before the
 *   first sweep, truncation below it) it replays from the first batch whose timestamp is within
 *   `producer.id.expiration.ms` of now: older producers would be expired anyway (Kafka measures
 *   expiry from batch timestamps too), so that is the bound of a rebuild.
 * Event-loop only.
 */
import { SluiceError, readBatchHeader, systemClock, type BatchSpan, type Clock } from '@sluice/protocol'
import type { Logger } from 'pino'
import type { PartitionLog } from '../log/index.js'
import { ProducerStateTable, type CachedBatch } from './producer-state-table.js'
import { deleteSnapshot, readSnapshot, writeSnapshot } from './producer-state-snapshot.js'
import { producerStateSweeper } from './producer-state-sweeper.js'

/** Kafka's producer.id.expiration.ms default: one day. */
export const DEFAULT_PRODUCER_ID_EXPIRATION_MS = 24 * 60 * 60 * 1000
/** Bytes per read while replaying the log into the state. */
const REPLAY_READ_BYTES = 1 << 20

export interface ProducerStateOptions {
  expirationMs?: number
  logger?: Logger
  /** Reads "now" for producer.id.expiration.ms (default systemClock); the partition passes its own. */
  clock?: Clock
}

export interface AppendOutcome {
  readonly firstOffset: bigint
  readonly lastOffset: bigint
  readonly maxTimestamp: bigint
  /** Set when the batches were a retry of batches already in the log: nothing was appended. */
  readonly duplicate?: boolean
}

export class ProducerStateManager {
  private readonly table = new ProducerStateTable()
  private loaded = false
  private stateEnd = -1n
  private snapshotOffset = -1n
  private files: Promise<void> = Promise.resolve()
  private closed = false
  readonly expirationMs: number
  private readonly clock: Clock
  private readonly logger: Logger | undefined

  constructor(
    private readonly log: PartitionLog,
    options: ProducerStateOptions = {},
  ) {
    this.expirationMs = options.expirationMs ?? DEFAULT_PRODUCER_ID_EXPIRATION_MS
    this.clock = options.clock ?? systemClock
    this.logger = options.logger
  }

  /** @internal tests and diagnostics */
  get state(): ProducerStateTable {
    return this.table
  }
  get isLoaded(): boolean {
    return this.loaded
  }

  /** In line with the log: a check or a record may follow without loadIfStale (which this does not start). */
  get isCurrent(): boolean {
    return !this.closed && this.loaded && this.stateEnd === this.log.logEndOffset
  }

  /**
   * Brings the state in line with the log before a check or a record: a promise when it must be
   * (re)built (first append after opening, or the log changed without us), else undefined, so
   * the common case costs no await. Throws NOT_LEADER_OR_FOLLOWER once closed.
   */
  loadIfStale(): Promise<void> | undefined {
    if (this.closed) throw new SluiceError('NOT_LEADER_OR_FOLLOWER', 'the replica is closed')
    if (this.loaded && this.stateEnd === this.log.logEndOffset) return undefined
    return this.load()
  }

  /**
   * The sequence check of a leader append (after loadIfStale): the original offsets when the
   * batches are a retry of batches already in the log (the caller appends nothing), else
   * undefined (append them, then recordLeaderAppend). Throws INVALID_PRODUCER_EPOCH /
   * OUT_OF_ORDER_SEQUENCE_NUMBER / INVALID_RECORD.
   */
  checkLeaderAppend(spans: readonly BatchSpan[]): AppendOutcome | undefined {
    const check = this.table.checkLeaderAppend(spans)
    return check.kind === 'duplicate' ? duplicateOutcome(check.batch) : undefined
  }

  /** Records the batches of a leader append that was written at `firstOffset`..`lastOffset`. */
  recordLeaderAppend(spans: readonly BatchSpan[], firstOffset: bigint, lastOffset: bigint): void {
    let next = firstOffset
    for (const s of spans) {
      this.table.recordBatch(s, next)
      next += BigInt(s.lastOffsetDelta) + 1n
    }
    this.stateEnd = lastOffset + 1n
  }

  /** Records replicated `batches` (offsets assigned by the leader) after the follower wrote them up to `lastOffset`. */
  recordReplicated(batches: Buffer, lastOffset: bigint): void {
    this.recordHeaders(batches, -1n)
    this.stateEnd = lastOffset + 1n
  }

  /** Drops expired producers; writes a snapshot when the state moved since the last one. Called by the sweeper. */
  async sweep(): Promise<void> {
    if (!this.loaded || this.closed) return
    const dropped = this.table.expire(BigInt(this.clock.nowMs()), BigInt(this.expirationMs))
    if (dropped > 0)
      this.logger?.debug({ dropped, partition: `${this.log.topic}-${this.log.partition}` }, 'expired idle producer ids')
    if (dropped > 0 || this.stateEnd !== this.snapshotOffset) await this.snapshot()
  }

  /** Writes the final snapshot (clean shutdown) and stops the periodic sweep for this replica. */
  async close(): Promise<void> {
    if (this.closed) return
    producerStateSweeper.unregister(this)
    if (this.loaded && this.stateEnd !== this.snapshotOffset) await this.snapshot().catch(() => undefined)
    this.closed = true
    await this.files
  }

  /** Writes the current state as a snapshot if it matches the log; else removes any stale snapshot. */
  async snapshot(): Promise<void> {
    if (!this.loaded || this.closed) return
    if (this.stateEnd !== this.log.logEndOffset) return // an append is half done or the log moved: next time
    const snap = {
      offset: this.stateEnd,
      producers: [...this.table.all()].map((e) => ({ ...e, batches: [...e.batches] })),
    }
    const dir = this.log.dir
    this.files = this.files
      .then(() => writeSnapshot(dir, snap))
      .then(
        () => {
          this.snapshotOffset = snap.offset
        },
        (err: unknown) => {
          this.logger?.warn(
            { err, dir },
            'writing the producer-state snapshot failed; a restart rebuilds it from the log',
          )
        },
      )
    await this.files
  }

  private async load(): Promise<void> {
    if (this.loaded) {
      this.logger?.info(
        { stateEnd: String(this.stateEnd), logEndOffset: String(this.log.logEndOffset) },
        'the log changed under the producer state (truncation); rebuilding it',
      )
    }
    await this.rebuild()
    if (!this.closed) producerStateSweeper.register(this)
  }

  private async rebuild(): Promise<void> {
    this.table.clear()
    this.loaded = false
    const end = this.log.logEndOffset
    const start = this.log.logStartOffset
    await this.files
    const snap = await readSnapshot(this.log.dir)
    let from: bigint
    let source: string
    if (snap !== undefined && snap.offset <= end) {
      for (const e of snap.producers) this.table.restore(e)
      from = snap.offset > start ? snap.offset : start
      source = 'snapshot'
      this.snapshotOffset = snap.offset
    } else {
      if (snap !== undefined) await deleteSnapshot(this.log.dir) // above the log end: written before a truncation
      this.snapshotOffset = -1n
      const horizon = await this.log.offsetForTimestamp(BigInt(this.clock.nowMs() - this.expirationMs))
      from = horizon?.offset ?? end
      source = 'log scan'
    }
    const replayed = await this.replay(from, end)
    this.table.expire(BigInt(this.clock.nowMs()), BigInt(this.expirationMs))
    this.stateEnd = end
    this.loaded = true
    this.logger?.info(
      {
        topic: this.log.topic,
        partition: this.log.partition,
        source,
        from: String(from),
        end: String(end),
        replayedBatches: replayed,
        producers: this.table.size,
      },
      'producer state loaded',
    )
  }

  /** Applies the headers of every batch holding offsets in [from, end). */
  private async replay(from: bigint, end: bigint): Promise<number> {
    let offset = from
    let batches = 0
    // Each read returns at least one whole batch, so this ends within (end - from) iterations.
    for (let guard = 0; offset < end && guard <= Number(end - from); guard++) {
      const { records } = await this.log.read(offset, REPLAY_READ_BYTES, { minOneBatch: true, maxOffset: end })
      if (records.length === 0) break
      const { count, nextOffset } = this.recordHeaders(records, offset)
      batches += count
      if (nextOffset <= offset) break
      offset = nextOffset
    }
    return batches
  }

  /** Records the whole batches of `buf` whose last offset is >= `minOffset`; returns how many and the offset after them. */
  private recordHeaders(buf: Buffer, minOffset: bigint): { count: number; nextOffset: bigint } {
    let pos = 0
    let count = 0
    let nextOffset = minOffset
    for (;;) {
      const h = readBatchHeader(buf, pos)
      if (h === undefined || h.sizeBytes <= 0 || pos + h.sizeBytes > buf.length) break
      const last = h.baseOffset + BigInt(h.lastOffsetDelta)
      if (last >= minOffset) {
        this.table.recordBatch(h, h.baseOffset)
        count++
        nextOffset = last + 1n
      }
      pos += h.sizeBytes
    }
    return { count, nextOffset }
  }
}

function duplicateOutcome(b: CachedBatch): AppendOutcome {
  return { firstOffset: b.firstOffset, lastOffset: b.lastOffset, maxTimestamp: b.timestamp, duplicate: true }
}
