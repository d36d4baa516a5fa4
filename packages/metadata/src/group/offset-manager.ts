/**
 * Committed offsets: an in-memory cache that serves OffsetFetch, kept in step with the records
 * this coordinator writes to __consumer_offsets (offset-records.ts) through an OffsetsLog.
 *
 * Invariants:
 * - The cache changes only after the log acknowledged the write, so a fetch never returns an
 *   offset that could be lost. Each write takes a sequence number when it is issued, and an
 *   acknowledgement applies only if no later-issued write for that partition applied first
 *   (one producer appends a group's writes in issue order, so this is the log's order).
 * - After a start with an existing topic the cache is rebuilt by replaying the topic (`load`);
 *   until that finished `loaded` is false and callers answer COORDINATOR_LOAD_IN_PROGRESS.
 *   Loading retries until it succeeds or the manager is stopped: every 100 ms while no broker
 *   is live yet, otherwise with exponential backoff.
 */
import { SluiceError } from '@sluice/protocol'
import type { Logger } from 'pino'
import {
  decodeOffsetKey,
  decodeOffsetValue,
  encodeOffsetKey,
  encodeOffsetValue,
  type OffsetValue,
} from './offset-records.js'
import type { OffsetRecord, OffsetsLog } from './offsets-log.js'

export interface CommittedOffset extends OffsetValue {
  readonly topic: string
  readonly partition: number
}

export interface OffsetWrite {
  readonly topic: string
  readonly partition: number
  readonly value: OffsetValue
}

const tpKey = (topic: string, partition: number): string => `${topic}\u0000${partition}`

export class OffsetManager {
  private readonly groups = new Map<string, Map<string, CommittedOffset>>()
  private seq = 0
  /** Sequence of the write that last changed each group/partition (acks may arrive out of order). */
  private readonly appliedSeq = new Map<string, number>()
  private readonly inflight = new Map<string, number>()
  private loadedFlag = false
  private stopped = false

  constructor(
    private readonly offsetsLog: OffsetsLog,
    private readonly logger: Logger,
  ) {}

  get loaded(): boolean {
    return this.loadedFlag
  }

  /** Loads the cache from the topic in the background; `loaded` turns true when done. */
  startLoading(options: { timeoutMs: number; retryMs: number }): Promise<void> {
    if (!this.offsetsLog.exists()) {
      this.loadedFlag = true
      return Promise.resolve()
    }
    return (async () => {
      const started = Date.now()
      for (let attempt = 1; !this.stopped; attempt++) {
        try {
          this.groups.clear()
          this.appliedSeq.clear()
          let records = 0
          await this.offsetsLog.readAll((key, value) => {
            records++
            this.replay(key, value)
          }, options.timeoutMs)
          if (this.stopped) return
          this.loadedFlag = true
          this.logger.info({ records, groups: this.groups.size, ms: Date.now() - started }, 'loaded committed offsets')
          return
        } catch (e) {
          if (this.stopped) return
          // No broker yet (brokers register again after a restart): poll quietly and often.
          const waiting = e instanceof SluiceError && e.code === 'COORDINATOR_NOT_AVAILABLE'
          if (waiting) this.logger.debug({ err: e, attempt }, 'waiting for brokers to load committed offsets')
          else this.logger.warn({ err: e, attempt }, 'loading committed offsets failed; retrying')
          const delay = waiting ? 100 : Math.min(options.retryMs * 2 ** Math.min(attempt - 1, 4), 10_000)
          await new Promise((resolve) => setTimeout(resolve, delay).unref())
        }
      }
    })()
  }

  stop(): void {
    this.stopped = true
  }

  private replay(key: Buffer, value: Buffer | null): void {
    const k = decodeOffsetKey(key)
    if (k === undefined) return
    if (value === null) {
      this.apply(k.group, k.topic, k.partition, undefined, undefined)
      return
    }
    const v = decodeOffsetValue(value)
    if (v === undefined) {
      this.logger.warn(
        { group: k.group, topic: k.topic, partition: k.partition },
        'skipping an undecodable offset record',
      )
      return
    }
    this.apply(k.group, k.topic, k.partition, { ...v, topic: k.topic, partition: k.partition }, undefined)
  }

  /** Writes the offsets (one append, acks=all) and then caches them. Throws a SluiceError. */
  async commit(groupId: string, writes: readonly OffsetWrite[]): Promise<void> {
    await this.write(
      groupId,
      writes.map((w) => ({
        topic: w.topic,
        partition: w.partition,
        value: { ...w.value, topic: w.topic, partition: w.partition },
      })),
    )
  }

  /** Writes tombstones for the partitions and drops them from the cache. */
  async delete(groupId: string, partitions: ReadonlyArray<{ topic: string; partition: number }>): Promise<void> {
    await this.write(
      groupId,
      partitions.map((p) => ({ topic: p.topic, partition: p.partition, value: undefined })),
    )
  }

  private async write(
    groupId: string,
    items: ReadonlyArray<{ topic: string; partition: number; value: CommittedOffset | undefined }>,
  ): Promise<void> {
    if (items.length === 0) return
    const records: OffsetRecord[] = items.map((i) => ({
      key: encodeOffsetKey({ group: groupId, topic: i.topic, partition: i.partition }),
      value: i.value === undefined ? null : encodeOffsetValue(i.value),
    }))
    const keys = items.map((i) => `${groupId}\u0000${tpKey(i.topic, i.partition)}`)
    const seqs = items.map(() => ++this.seq)
    for (const k of keys) this.inflight.set(k, (this.inflight.get(k) ?? 0) + 1)
    try {
      await this.offsetsLog.append(groupId, records)
      items.forEach((i, n) => {
        this.apply(groupId, i.topic, i.partition, i.value, seqs[n]!)
      })
    } finally {
      // The ordering guard is only needed while writes for the key are in flight.
      for (const k of keys) {
        const left = this.inflight.get(k)! - 1
        if (left > 0) this.inflight.set(k, left)
        else {
          this.inflight.delete(k)
          this.appliedSeq.delete(k)
        }
      }
    }
  }

  /** `seq` undefined = replay (log order, always applies); else only if newer than what applied. */
  private apply(
    groupId: string,
    topic: string,
    partition: number,
    value: CommittedOffset | undefined,
    seq: number | undefined,
  ): void {
    const key = tpKey(topic, partition)
    const seqKey = `${groupId}\u0000${key}`
    if (seq !== undefined) {
      if ((this.appliedSeq.get(seqKey) ?? 0) > seq) return
      this.appliedSeq.set(seqKey, seq)
    }
    let g = this.groups.get(groupId)
    if (value === undefined) {
      g?.delete(key)
      if (g !== undefined && g.size === 0) this.groups.delete(groupId)
      return
    }
    if (g === undefined) {
      g = new Map()
      this.groups.set(groupId, g)
    }
    g.set(key, value)
  }

  get(groupId: string, topic: string, partition: number): CommittedOffset | undefined {
    return this.groups.get(groupId)?.get(tpKey(topic, partition))
  }

  list(groupId: string): CommittedOffset[] {
    const g = this.groups.get(groupId)
    if (g === undefined) return []
    return [...g.values()].sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition))
  }

  hasGroup(groupId: string): boolean {
    return this.groups.has(groupId)
  }

  groupIds(): string[] {
    return [...this.groups.keys()]
  }

  /**
   * Offset retention: for each group that `emptySince` says is empty (undefined = active, skip),
   * tombstones every offset older than the retention, counted from the later of its commit and
   * the moment the group became empty. Returns the groups that were swept.
   */
  async expire(
    now: number,
    retentionMs: number,
    emptySince: (groupId: string) => number | undefined,
  ): Promise<string[]> {
    const swept: string[] = []
    for (const groupId of this.groupIds()) {
      const since = emptySince(groupId)
      if (since === undefined) continue
      const old = this.list(groupId).filter((o) => Math.max(o.commitTimestamp, since) + retentionMs <= now)
      if (old.length === 0) continue
      try {
        await this.delete(groupId, old)
        swept.push(groupId)
        this.logger.info({ groupId, partitions: old.length }, 'expired committed offsets')
      } catch (e) {
        this.logger.warn({ err: e, groupId }, 'expiring committed offsets failed; the next sweep retries')
      }
    }
    return swept
  }
}

/** Maps a failed write to the error a committing client should see (Kafka's mapping). */
export function commitFailure(e: unknown): SluiceError {
  if (e instanceof SluiceError) {
    if (e.code === 'MESSAGE_TOO_LARGE' || e.code === 'RECORD_LIST_TOO_LARGE')
      return new SluiceError('INVALID_COMMIT_OFFSET_SIZE', e.message)
    if (e.code === 'COORDINATOR_NOT_AVAILABLE' || e.code === 'COORDINATOR_LOAD_IN_PROGRESS') return e
    return new SluiceError('COORDINATOR_NOT_AVAILABLE', `writing to __consumer_offsets failed: ${e.code}: ${e.message}`)
  }
  return new SluiceError(
    'COORDINATOR_NOT_AVAILABLE',
    `writing to __consumer_offsets failed: ${(e as Error)?.message ?? String(e)}`,
  )
}
