/**
 * One hosted partition replica: its log, its role (leader or follower, from the controller's
 * partition state), leader epoch, ISR and high watermark.
 *
 * Invariants:
 * - Appends are serialised here (one writer at a time, as PartitionLog requires), and each runs
 *   only if this replica is still leader when its turn comes (else it fails with the retriable
 *   NOT_LEADER_OR_FOLLOWER and writes nothing); it is stamped with the leader epoch current at
 *   that moment.
 * - The high watermark never moves backwards while this replica leads, and never passes the log
 *   end offset. It is recomputed after every append in `maybeAdvanceHighWatermark`, the one place
 *   where the policy lives: today the ISR is only the leader, so HW = LEO; with replication it
 *   becomes min(LEO) over the ISR (DESIGN.md §6), and acks=-1 waits complete when it passes.
 * - Waiters for the high watermark (acks=-1) are bounded; they fail with NOT_LEADER_OR_FOLLOWER
 *   when leadership is lost or the replica is closed, and with REQUEST_TIMED_OUT at their timeout.
 * Event-loop only.
 */
import assert from 'node:assert/strict'
import { SluiceError, type BatchSpan } from '@sluice/protocol'
import type { PartitionLog } from './log/index.js'
import type { PartitionStateView } from './metadata-cache.js'

export type ReplicaRole = 'leader' | 'follower' | 'closed'

export interface PartitionHooks {
  /** Records became visible to consumers (the HW advanced) on partition `key`; ~`bytes` of them. */
  onHighWatermarkAdvanced (key: string, bytes: number): void
  /** Role or leader epoch changed, or the replica closed: parked fetches must re-evaluate. */
  onStateChange (key: string): void
}

export interface LeaderAppendResult {
  readonly firstOffset: bigint
  readonly lastOffset: bigint
  readonly maxTimestamp: bigint
}

interface HighWatermarkWaiter {
  readonly offset: bigint
  readonly resolve: () => void
  readonly reject: (err: SluiceError) => void
  timer?: NodeJS.Timeout
}

const MAX_HW_WAITERS = 100_000

export class Partition {
  private roleValue: ReplicaRole = 'follower'
  private leaderEpochValue = -1
  private stateValue: PartitionStateView | undefined
  private hw = 0n
  /** Bytes appended since the HW last advanced; an estimate handed to parked fetches. */
  private unreportedBytes = 0
  private appendTail: Promise<unknown> = Promise.resolve()
  private hwWaiters: HighWatermarkWaiter[] = []

  constructor (
    readonly topic: string,
    readonly partition: number,
    readonly key: string,
    readonly log: PartitionLog,
    private readonly brokerId: number,
    private readonly hooks: PartitionHooks,
  ) {}

  get role (): ReplicaRole { return this.roleValue }
  get isLeader (): boolean { return this.roleValue === 'leader' }
  get leaderEpoch (): number { return this.leaderEpochValue }
  get isr (): readonly number[] { return this.stateValue?.isr ?? [] }
  get topicId (): string { return this.stateValue?.topicId ?? '' }
  get highWatermark (): bigint { return this.hw }
  get logEndOffset (): bigint { return this.log.logEndOffset }
  get logStartOffset (): bigint { return this.log.logStartOffset }

  /** Applies the controller's state for this partition (leader, epoch, ISR). */
  applyState (state: PartitionStateView): void {
    assert(this.roleValue !== 'closed', 'state applied to a closed replica')
    const before = { role: this.roleValue, epoch: this.leaderEpochValue }
    this.stateValue = state
    this.leaderEpochValue = state.leaderEpoch
    this.roleValue = state.leader === this.brokerId ? 'leader' : 'follower'
    if (this.roleValue === 'leader' && before.role !== 'leader') {
      // A new leader starts from its own log: with the ISR limited to the leader, everything it
      // holds is committed. (With replication: Kafka's leader keeps its HW and lets followers
      // move it; that replaces this line.)
      this.hw = this.hw > this.log.logEndOffset ? this.log.logEndOffset : this.hw
      this.maybeAdvanceHighWatermark()
    }
    if (this.roleValue !== 'leader') this.failWaiters('NOT_LEADER_OR_FOLLOWER', 'this broker is no longer the leader')
    if (before.role !== this.roleValue || before.epoch !== this.leaderEpochValue) this.hooks.onStateChange(this.key)
  }

  /**
   * Appends validated batches as leader. Runs after every earlier append of this partition; fails
   * with NOT_LEADER_OR_FOLLOWER if leadership was lost meanwhile.
   */
  appendAsLeader (records: Buffer, spans: readonly BatchSpan[]): Promise<LeaderAppendResult> {
    const run = async (): Promise<LeaderAppendResult> => {
      if (this.roleValue !== 'leader') throw new SluiceError('NOT_LEADER_OR_FOLLOWER', `not the leader of ${this.topic}-${this.partition}`)
      const result = await this.log.appendAsLeader(records, spans, this.leaderEpochValue)
      this.unreportedBytes += records.length
      this.maybeAdvanceHighWatermark()
      return result
    }
    const p = this.appendTail.then(run, run)
    this.appendTail = p.catch(() => undefined)
    return p
  }

  /** Resolves once the high watermark reaches `offset` (exclusive end of the batch). */
  waitForHighWatermark (offset: bigint, timeoutMs: number): Promise<void> {
    if (this.hw >= offset) return Promise.resolve()
    if (this.roleValue !== 'leader') return Promise.reject(new SluiceError('NOT_LEADER_OR_FOLLOWER'))
    if (this.hwWaiters.length >= MAX_HW_WAITERS) return Promise.reject(new SluiceError('REQUEST_TIMED_OUT', 'too many requests waiting for replication'))
    return new Promise((resolve, reject) => {
      const waiter: HighWatermarkWaiter = { offset, resolve, reject }
      waiter.timer = setTimeout(() => {
        this.hwWaiters = this.hwWaiters.filter((w) => w !== waiter)
        reject(new SluiceError('REQUEST_TIMED_OUT', `the high watermark did not reach ${offset} within ${timeoutMs} ms`))
      }, Math.max(1, timeoutMs))
      this.hwWaiters.push(waiter)
    })
  }

  /** Waits for queued appends, then stops serving: later calls fail NOT_LEADER_OR_FOLLOWER. */
  async close (): Promise<void> {
    this.roleValue = 'closed'
    await this.appendTail
    this.failWaiters('NOT_LEADER_OR_FOLLOWER', 'the replica was closed')
    this.hooks.onStateChange(this.key)
  }

  /** The HW policy; see the module comment. */
  private maybeAdvanceHighWatermark (): void {
    if (this.roleValue !== 'leader') return
    const candidate = this.log.logEndOffset // TODO(replication): min over ISR members' LEO
    if (candidate <= this.hw) return
    this.hw = candidate
    const bytes = this.unreportedBytes
    this.unreportedBytes = 0
    if (this.hwWaiters.length > 0) {
      const still: HighWatermarkWaiter[] = []
      for (const w of this.hwWaiters) {
        if (w.offset <= this.hw) { clearTimeout(w.timer); w.resolve() } else still.push(w)
      }
      this.hwWaiters = still
    }
    this.hooks.onHighWatermarkAdvanced(this.key, bytes)
  }

  private failWaiters (code: 'NOT_LEADER_OR_FOLLOWER', message: string): void {
    const waiters = this.hwWaiters
    this.hwWaiters = []
    for (const w of waiters) { clearTimeout(w.timer); w.reject(new SluiceError(code, message)) }
  }
}
