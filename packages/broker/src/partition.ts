/**
 * One hosted partition replica: its log, its role (leader or follower, from the controller's
 * partition state), leader epoch, ISR and high watermark (docs/design.md §6, docs/kafka-facts.md §3).
 *
 * Who checks what on the produce path (each check is made once, by the layer that owns it):
 * - server/context.ts `leaderReplica` (every per-partition handler): the topic-partition is in
 *   the metadata cache (UNKNOWN_TOPIC_OR_PARTITION) and this broker hosts its leader
 *   (NOT_LEADER_OR_FOLLOWER). Routing only; it says nothing about the lease.
 * - server/produce-handler.ts: the request itself: acks, batch framing, CRC and magic
 *   (validateBatches: CORRUPT_MESSAGE / INVALID_BATCH), no control batches from clients
 *   (INVALID_RECORD), LogAppendTime stamping.
 * - Partition.appendAsLeader (here), at the append's turn in the log's write queue (or at once
 *   when the queue is idle and the append is one small write: PartitionLog.appendPlannedSync):
 *   the role and the lease (acceptsWritesFor: NOT_LEADER_OR_FOLLOWER; leadership can move while
 *   an append waits, so this is where it is decided), acks=all against min.insync.replicas
 *   (NOT_ENOUGH_REPLICAS), then the idempotent-producer sequence (ProducerStateManager:
 *   INVALID_PRODUCER_EPOCH / OUT_OF_ORDER_SEQUENCE_NUMBER, or a duplicate answered with the
 *   original offsets), between the log's planning and its write.
 * - PartitionLog.planLeaderAppend: spans tile the buffer, max.message.bytes of the log's config
 *   (MESSAGE_TOO_LARGE). Follower appends: CRC, magic and offset order in
 *   PartitionLog.appendReplicated (the leader's fetch answer is not trusted blindly).
 *
 * Invariants:
 * - Log writes are serialised by the log's one write queue (PartitionLog.exclusively): leader
 *   appends, follower appends, truncation, DeleteRecords and the leader-epoch stamp of a new
 *   leadership run there as one task each, together with this class's checks, and each checks at
 *   its turn that the role (and leader epoch) it was meant for still holds; otherwise it fails
 *   with the retriable NOT_LEADER_OR_FOLLOWER and writes nothing. Retention, the compaction swap,
 *   flush and close are the log's other writers and queue on the same queue.
 * - As leader: the high watermark is min(LEO) over the maximal ISR (committed ISR ∪ a pending
 *   addition) and over caught-up followers about to join (Kafka's maybeIncrementLeaderHW). It
 *   never moves backwards and never passes the log end offset. A leader accepts writes only while
 *   `canLead()` (the broker's metadata-session lease) holds.
 * - As follower: HW = min(leader's HW, own LEO); appends come only from the current leader's
 *   fetch responses, in the leader epoch they were fetched in.
 * - acks=-1 waiters are bounded; they fail with NOT_LEADER_OR_FOLLOWER when leadership is lost or
 *   the replica closes, and with REQUEST_TIMED_OUT at their timeout.
 * - DeleteRecords answers once the low watermark (the smallest log start offset of this leader and
 *   the followers in the committed ISR, as their fetch requests report it) reached the new log
 *   start offset, through the same waiter mechanism as acks=-1 and with the same failure rules.
 * Event-loop only.
 */
import assert from 'node:assert/strict'
import { SluiceError, systemClock, traceHop, traceOn, type BatchSpan, type Clock, type wire } from '@sluice/protocol'
import type { AppendedRange, LeaderAppendPlan, PartitionLog } from './log/index.js'
import type { PartitionStateView } from './metadata-cache.js'
import { lastFetchedEpoch } from './replication/divergence.js'
import { FollowerTracker } from './replication/follower-tracker.js'
import { PendingIsrChange, type IsrChangeRequest } from './replication/isr-change.js'
import { HighWatermarkWaiters, type WaiterCallback } from './replication/hw-waiters.js'
import { ProducerStateManager } from './producer-state/index.js'

export type ReplicaRole = 'leader' | 'follower' | 'closed'

export interface PartitionHooks {
  /** Records became visible to consumers (the HW advanced) on partition `key`; ~`bytes` of them. */
  onHighWatermarkAdvanced(key: string, bytes: number): void
  /** Role or leader epoch changed, or the replica closed: parked fetches must re-evaluate. */
  onStateChange(key: string): void
  /** The leader appended `bytes` (what parked follower fetches wait for). */
  onLogAppended?(key: string, bytes: number): void
  /** The fencing rule: whether this broker may act as leader now (default: always). */
  canLead?(): boolean
  /** Whether a broker is registered (live) now; a dead follower is not proposed for the ISR. */
  isBrokerLive?(brokerId: number): boolean
  /** Sends AlterPartition for this partition (default: refuses, so the ISR never changes). */
  alterPartition?(
    topic: string,
    partition: number,
    request: IsrChangeRequest,
  ): Promise<wire.AlterPartitionResponse__Output>
  /** Something worth a log line happened (ISR proposals dropped, send errors). */
  onEvent?(event: string, details: Record<string, unknown>): void
}

export interface PartitionOptions {
  /** replica.lag.time.max.ms (default 30000). */
  readonly replicaLagMaxMs?: number
  /** The HW from the replication-offset-checkpoint; clamped to the log end offset. */
  readonly initialHighWatermark?: bigint
  readonly isrRetryBackoffMs?: number
  /** Drives the replica-lag decisions and the ISR change retry (default: systemClock). */
  readonly clock?: Clock
  /** Called whenever the HW changes (any direction), so the checkpointer writes only when needed. */
  readonly onHighWatermarkChange?: () => void
}

export interface LeaderAppendResult {
  readonly firstOffset: bigint
  readonly lastOffset: bigint
  readonly maxTimestamp: bigint
  /** Set when the batches were an idempotent producer's retry of batches already in the log: nothing was appended. */
  readonly duplicate?: boolean
}

export class Partition {
  /** Idempotent-producer state (producer-state/): asked and updated by the leader and follower appends here. */
  readonly producers: ProducerStateManager
  private roleValue: ReplicaRole = 'follower'
  private leaderEpochValue = -1
  private stateValue: PartitionStateView | undefined
  private hwValue = 0n
  private readonly onHwChange: (() => void) | undefined
  /** Bytes appended since the HW last advanced; an estimate handed to parked fetches. */
  private unreportedBytes = 0
  /** Offset where the current leadership's epoch starts (-1 until stamped, and as follower). */
  private leaderEpochStartOffset = -1n
  private readonly followers = new FollowerTracker()
  private readonly isrChange: PendingIsrChange
  private readonly waiters: HighWatermarkWaiters
  private readonly deleteWaiters: HighWatermarkWaiters
  private readonly lagMaxMs: number
  private readonly now: () => number

  constructor(
    readonly topic: string,
    readonly partition: number,
    readonly key: string,
    readonly log: PartitionLog,
    private readonly brokerId: number,
    private readonly hooks: PartitionHooks,
    options: PartitionOptions = {},
  ) {
    this.lagMaxMs = options.replicaLagMaxMs ?? 30_000
    const clock = options.clock ?? systemClock
    this.now = () => clock.nowMs()
    this.onHwChange = options.onHighWatermarkChange
    this.producers = new ProducerStateManager(log, { clock })
    this.waiters = new HighWatermarkWaiters('the high watermark', clock, (err) =>
      this.event('an acks=all waiter failed', { err }),
    )
    this.deleteWaiters = new HighWatermarkWaiters(
      'the low watermark (log start offset of every in-sync replica)',
      clock,
    )
    const initial = options.initialHighWatermark ?? 0n
    this.hw = initial > log.logEndOffset ? log.logEndOffset : initial < 0n ? 0n : initial
    this.isrChange = new PendingIsrChange({
      send: (req) =>
        hooks.alterPartition !== undefined
          ? hooks.alterPartition(topic, partition, req)
          : Promise.reject(new SluiceError('BROKER_NOT_AVAILABLE', 'no metadata session to change the ISR')),
      retryBackoffMs: options.isrRetryBackoffMs ?? 1000,
      onCommitted: (state) => this.onIsrCommitted(state),
      onDropped: (reason) => this.event('ISR change dropped', { reason }),
      onSendError: (err) => this.event('AlterPartition failed; will retry', { err }),
      current: () => ({ leaderEpoch: this.leaderEpochValue, partitionEpoch: this.partitionEpoch }),
      clock,
    })
  }

  get role(): ReplicaRole {
    return this.roleValue
  }
  // Every HW assignment goes through here so that a change marks the checkpoint dirty.
  private get hw(): bigint {
    return this.hwValue
  }
  private set hw(value: bigint) {
    if (value === this.hwValue) return
    this.hwValue = value
    this.onHwChange?.()
  }

  get isLeader(): boolean {
    return this.roleValue === 'leader'
  }
  get leaderEpoch(): number {
    return this.leaderEpochValue
  }
  get leader(): number {
    return this.stateValue?.leader ?? -1
  }
  get replicas(): readonly number[] {
    return this.stateValue?.replicas ?? []
  }
  /** The committed ISR (the controller's). */
  get isr(): readonly number[] {
    return this.stateValue?.isr ?? []
  }
  /** Committed ISR ∪ a pending addition: what the HW and the acks=-1 checks count. */
  get maximalIsr(): readonly number[] {
    return this.isrChange.maximal(this.isr)
  }
  get partitionEpoch(): number {
    return this.stateValue?.partitionEpoch ?? -1
  }
  get topicId(): string {
    return this.stateValue?.topicId ?? ''
  }
  get highWatermark(): bigint {
    return this.hw
  }
  get logEndOffset(): bigint {
    return this.log.logEndOffset
  }
  get logStartOffset(): bigint {
    return this.log.logStartOffset
  }
  /**
   * Writes acknowledged only once the whole ISR has them (acks=all) need no lease: the ISR peers
   * of a deposed leader stop fetching from it, so its high watermark cannot pass what they have
   * and it acknowledges nothing a new leader lacks. Leaders keep taking them while the metadata
   * service is unreachable, as long as every other ISR member is still fetching from them (within
   * replicaLagMaxMs); a leader cut off from its followers answers NOT_LEADER_OR_FOLLOWER instead,
   * so clients look for the new leader rather than wait for time-outs (docs/replication.md).
   */
  acceptsWritesFor(waitsForIsr: boolean): boolean {
    if (this.roleValue !== 'leader') return false
    if (this.hooks.canLead?.() ?? true) return true
    if (!waitsForIsr) return false
    const now = this.now()
    return this.isr.every(
      (id) => id === this.brokerId || now - (this.followers.get(id)?.lastFetchTimeMs ?? -Infinity) <= this.lagMaxMs,
    )
  }
  /** Epoch of the last batch in the log (what a follower sends as last_fetched_epoch). */
  get lastFetchedEpoch(): number {
    return lastFetchedEpoch(this.log.leaderEpochs(), this.log.logEndOffset)
  }

  /**
   * Applies the controller's state for this partition (leader, epochs, ISR). Becoming leader (or
   * a new leader epoch as leader) stamps the epoch into the leader-epoch cache before any append
   * of the new leadership; becoming follower fails acks=-1 waiters.
   */
  async applyState(state: PartitionStateView): Promise<void> {
    assert(this.roleValue !== 'closed', 'state applied to a closed replica')
    const before = { role: this.roleValue, epoch: this.leaderEpochValue }
    if (state.leaderEpoch === before.epoch && state.partitionEpoch < this.partitionEpoch) return // older than an AlterPartition answer
    this.stateValue = state
    this.leaderEpochValue = state.leaderEpoch
    this.roleValue = state.leader === this.brokerId ? 'leader' : 'follower'
    this.isrChange.onState(state.leaderEpoch, state.partitionEpoch)
    const changed = before.role !== this.roleValue || before.epoch !== this.leaderEpochValue
    if (this.roleValue !== 'leader') {
      this.isrChange.cancel()
      this.followers.clear()
      this.leaderEpochStartOffset = -1n
      const notLeader = new SluiceError(
        'NOT_LEADER_OR_FOLLOWER',
        `broker ${this.brokerId} is no longer the leader of ${this.topic}-${this.partition}`,
      )
      this.waiters.failAll(notLeader)
      this.deleteWaiters.failAll(notLeader)
      if (changed) await this.dropUnusedLeaderEpoch()
    } else if (changed) {
      this.isrChange.cancel()
      this.followers.reset(state.replicas, state.isr, this.brokerId, this.now())
      if (this.hw > this.log.logEndOffset) this.hw = this.log.logEndOffset
      // Before the stamp's await: reads (ListOffsets latest, fetches) served in between must not see
      // a stale HW from the checkpoint when the HW may already move (a leader without followers).
      this.maybeAdvanceHighWatermark()
      await this.stampLeaderEpoch(state.leaderEpoch)
    }
    if (changed) this.hooks.onStateChange(this.key)
    this.maybeAdvanceHighWatermark()
    this.releaseDeleteWaiters()
  }

  /**
   * Appends batches the produce handler validated, as leader, after every earlier write of the
   * log: checks leadership and lease, min.insync.replicas for acks=all (`acksAll`) and the
   * producer sequence at its turn (module comment), then has the log stamp and write them.
   * `spans` are the batches of `records` (validateBatches). The result itself, without a
   * promise, when the log's writer is idle and the append needs no I/O but its one small write
   * (PartitionLog.appendPlannedSync); a refusal always rejects.
   */
  appendAsLeader(
    records: Buffer,
    spans: readonly BatchSpan[],
    acksAll = false,
    minInsyncReplicas = 1,
  ): LeaderAppendResult | Promise<LeaderAppendResult> {
    if (this.log.writerIdle && this.producers.isCurrent) {
      try {
        this.checkLeaderAppend(acksAll, minInsyncReplicas)
        const plan = this.log.planLeaderAppend(records, spans, this.leaderEpochValue)
        const duplicate = this.producers.checkLeaderAppend(spans)
        if (duplicate !== undefined) return duplicate
        if (this.log.appendPlannedSync(records, plan)) return this.leaderAppended(records, spans, plan)
      } catch (err) {
        return Promise.reject(err as Error)
      }
    }
    return this.log.exclusively(async () => {
      this.checkLeaderAppend(acksAll, minInsyncReplicas)
      const loading = this.producers.loadIfStale()
      if (loading !== undefined) await loading
      const plan = this.log.planLeaderAppend(records, spans, this.leaderEpochValue)
      const duplicate = this.producers.checkLeaderAppend(spans)
      if (duplicate !== undefined) return duplicate
      await this.log.appendPlanned(records, plan)
      return this.leaderAppended(records, spans, plan)
    })
  }

  /** The role, lease and min.insync.replicas checks of a leader append, at its turn. */
  private checkLeaderAppend(acksAll: boolean, minInsyncReplicas: number): void {
    if (!this.acceptsWritesFor(acksAll)) {
      throw new SluiceError(
        'NOT_LEADER_OR_FOLLOWER',
        this.roleValue === 'leader'
          ? `broker ${this.brokerId} lost its metadata session and may not take writes for ${this.topic}-${this.partition}`
          : `not the leader of ${this.topic}-${this.partition}`,
      )
    }
    if (acksAll && this.isr.length < minInsyncReplicas) {
      throw new SluiceError(
        'NOT_ENOUGH_REPLICAS',
        `${this.isr.length} in-sync replicas, min.insync.replicas is ${minInsyncReplicas}`,
      )
    }
  }

  /** After a leader append was written: producer state, the followers' parked fetches, the HW. */
  private leaderAppended(records: Buffer, spans: readonly BatchSpan[], plan: LeaderAppendPlan): LeaderAppendResult {
    // Stamped here, before onLogAppended wakes the followers' parked fetches, which answer before
    // the caller sees this result: the anatomy must see the append before those answers.
    if (traceOn) {
      traceHop('append-done', this.brokerId, this.topic, this.partition, plan.firstOffset, plan.lastOffset + 1n)
    }
    this.producers.recordLeaderAppend(spans, plan.firstOffset, plan.lastOffset)
    this.unreportedBytes += records.length
    this.hooks.onLogAppended?.(this.key, records.length)
    this.maybeAdvanceHighWatermark()
    return plan
  }

  /**
   * Resolves once the high watermark reaches `offset` (the exclusive end of a batch), with the
   * maximal ISR size at that moment (for NOT_ENOUGH_REPLICAS_AFTER_APPEND).
   */
  waitForHighWatermark(offset: bigint, timeoutMs: number): Promise<{ isrSize: number }> {
    return new Promise((resolve, reject) =>
      this.watchHighWatermark(offset, timeoutMs, (err, isrSize) =>
        err === undefined ? resolve({ isrSize }) : reject(err),
      ),
    )
  }

  /**
   * waitForHighWatermark with a callback, called synchronously when the HW is already there or
   * inside the call that advances it (the acks=all answer path; hw-waiters.ts says why).
   */
  watchHighWatermark(offset: bigint, timeoutMs: number, done: WaiterCallback): void {
    if (this.hw >= offset) done(undefined, this.maximalIsr.length)
    else if (this.roleValue !== 'leader') done(new SluiceError('NOT_LEADER_OR_FOLLOWER'), 0)
    else this.waiters.watch(offset, timeoutMs, done)
  }

  /**
   * Leader: the smallest log start offset of this replica and of every follower in the committed
   * ISR; undefined while some ISR follower has not reported its own in this leadership.
   */
  get lowWatermark(): bigint | undefined {
    let low = this.log.logStartOffset
    for (const id of this.isr) {
      if (id === this.brokerId) continue
      const f = this.followers.get(id)
      if (f === undefined || f.logStartOffset < 0n) return undefined
      if (f.logStartOffset < low) low = f.logStartOffset
    }
    return low
  }

  /**
   * DeleteRecords as leader: moves this log's start up to `offset` (at most the HW; the caller
   * validated it), then waits until every ISR follower moved its own start there too (they learn
   * it from fetch responses), and returns the low watermark. REQUEST_TIMED_OUT after `timeoutMs`
   * (the leader's records are deleted by then all the same); NOT_LEADER_OR_FOLLOWER when
   * leadership is lost meanwhile.
   */
  async deleteRecords(offset: bigint, timeoutMs: number): Promise<bigint> {
    if (this.roleValue !== 'leader')
      throw new SluiceError('NOT_LEADER_OR_FOLLOWER', `not the leader of ${this.topic}-${this.partition}`)
    const hw = this.hw
    const start = await this.log.exclusively(() => this.log.deleteRecordsBefore(offset, hw))
    const low = this.lowWatermark
    if (low !== undefined && low >= start) return low
    const waiting = this.deleteWaiters.add(start, timeoutMs)
    // Parked follower fetches answer now (with the new log start) instead of at their wait limit.
    this.hooks.onStateChange(this.key)
    await waiting
    return this.lowWatermark ?? start
  }

  private releaseDeleteWaiters(): void {
    if (this.deleteWaiters.size === 0 || this.roleValue !== 'leader') return
    const low = this.lowWatermark
    if (low !== undefined) this.deleteWaiters.release(low, this.isr.length)
  }

  // ---- leader side of replication ----

  /**
   * A follower fetched at `fetchOffset` (its LEO) with its log start offset `logStartOffset`
   * (-1n: not reported): update its state, maybe add it to the ISR, maybe advance the HW, maybe
   * answer DeleteRecords. The caller checked that it is a replica and the epochs match.
   */
  recordFollowerFetch(followerId: number, fetchOffset: bigint, logStartOffset = -1n): void {
    if (this.roleValue !== 'leader') return
    const s = this.followers.update(followerId, fetchOffset, this.log.logEndOffset, this.now(), logStartOffset)
    if (s === undefined) return
    this.maybeExpandIsr(followerId, fetchOffset)
    this.maybeAdvanceHighWatermark()
    this.releaseDeleteWaiters()
  }

  /** The periodic check: propose removing followers that have not caught up for replicaLagMaxMs. */
  maybeShrinkIsr(): void {
    if (this.roleValue !== 'leader' || this.isrChange.active || this.stateValue === undefined) return
    const nowMs = this.now()
    const isr = this.isr
    const keep = isr.filter((id) => id === this.brokerId || this.followers.isCaughtUp(id, nowMs, this.lagMaxMs))
    if (keep.length === isr.length || !keep.includes(this.brokerId)) return
    this.event('shrinking the ISR', { isr, newIsr: keep, lagMaxMs: this.lagMaxMs })
    this.isrChange.propose({ newIsr: keep, leaderEpoch: this.leaderEpochValue, partitionEpoch: this.partitionEpoch })
  }

  private maybeExpandIsr(followerId: number, followerLeo: bigint): void {
    if (this.isrChange.active || this.isr.includes(followerId) || this.stateValue === undefined) return
    if (this.leaderEpochStartOffset < 0n || followerLeo < this.hw || followerLeo < this.leaderEpochStartOffset) return
    if (!(this.hooks.isBrokerLive?.(followerId) ?? true)) return
    const newIsr = [...this.isr, followerId]
    this.event('expanding the ISR', { isr: this.isr, newIsr })
    this.isrChange.propose({ newIsr, leaderEpoch: this.leaderEpochValue, partitionEpoch: this.partitionEpoch })
    this.maybeAdvanceHighWatermark()
  }

  private onIsrCommitted(state: wire.PartitionState__Output): void {
    const cur = this.stateValue
    if (cur === undefined || this.roleValue !== 'leader' || state.partition_epoch <= cur.partitionEpoch) return
    this.stateValue = { ...cur, isr: [...state.isr], partitionEpoch: state.partition_epoch }
    this.event('ISR changed', { isr: state.isr, partitionEpoch: state.partition_epoch })
    this.maybeAdvanceHighWatermark()
    this.releaseDeleteWaiters() // a follower that left the ISR no longer holds DeleteRecords back
  }

  // ---- follower side of replication ----

  /**
   * Appends batches fetched from the leader of `leaderEpoch`; refused if the role moved on. The
   * offsets written themselves, without a promise, when the log's writer is idle and the append
   * needs no I/O but its one small write (PartitionLog.appendReplicatedSync); a refusal always
   * rejects.
   */
  appendAsFollower(records: Buffer, leaderEpoch: number): AppendedRange | Promise<AppendedRange> {
    if (this.log.writerIdle && this.producers.isCurrent) {
      try {
        this.assertFollowing(leaderEpoch)
        const written = this.log.appendReplicatedSync(records)
        if (written !== undefined) return this.followerAppended(records, written)
      } catch (err) {
        return Promise.reject(err as Error)
      }
    }
    return this.log.exclusively(async () => {
      this.assertFollowing(leaderEpoch)
      const loading = this.producers.loadIfStale()
      if (loading !== undefined) await loading
      return this.followerAppended(records, await this.log.appendReplicated(records))
    })
  }

  private followerAppended(records: Buffer, written: AppendedRange): AppendedRange {
    this.producers.recordReplicated(records, written.lastOffset)
    if (traceOn)
      traceHop(
        'follower-append-done',
        this.brokerId,
        this.topic,
        this.partition,
        written.firstOffset,
        written.lastOffset + 1n,
      )
    return written
  }

  /** Truncates the log (divergence) while following the leader of `leaderEpoch`. */
  truncateTo(offset: bigint, leaderEpoch: number): Promise<void> {
    return this.log.exclusively(async () => {
      this.assertFollowing(leaderEpoch)
      await this.log.truncateTo(offset)
      if (this.hw > this.log.logEndOffset) this.hw = this.log.logEndOffset
    })
  }

  /**
   * Follows the leader's log start offset (retention, DeleteRecords): records below it go here
   * too, but never past this replica's own HW. When this replica's whole log is below the
   * leader's start (it fell behind retention), the log restarts empty at the leader's start.
   */
  followLeaderLogStart(leaderLogStart: bigint, leaderEpoch: number): Promise<void> {
    return this.log.exclusively(async () => {
      this.assertFollowing(leaderEpoch)
      if (leaderLogStart > this.log.logEndOffset) {
        await this.log.truncateFullyAndStartAt(leaderLogStart)
        this.hw = leaderLogStart
        return
      }
      const upTo = leaderLogStart < this.hw ? leaderLogStart : this.hw
      if (upTo > this.log.logStartOffset) await this.log.deleteRecordsBefore(upTo, this.hw)
    })
  }

  /** The leader's HW from a fetch response: HW = min(leader HW, own LEO), never backwards. */
  updateFollowerHighWatermark(leaderHighWatermark: bigint): void {
    if (this.roleValue !== 'follower') return
    const leo = this.log.logEndOffset
    const next = leaderHighWatermark < leo ? leaderHighWatermark : leo
    if (next > this.hw) this.hw = next
  }

  /** Waits for queued writes, then stops serving: later calls fail NOT_LEADER_OR_FOLLOWER. */
  async close(): Promise<void> {
    this.roleValue = 'closed'
    this.isrChange.cancel()
    await this.log.exclusively(async () => undefined) // queued writes finish first
    await this.producers.close()
    this.waiters.failAll(new SluiceError('NOT_LEADER_OR_FOLLOWER', 'the replica was closed'))
    this.deleteWaiters.failAll(new SluiceError('NOT_LEADER_OR_FOLLOWER', 'the replica was closed'))
    this.hooks.onStateChange(this.key)
  }

  // ---- internals ----

  private assertFollowing(leaderEpoch: number): void {
    if (this.roleValue !== 'follower' || this.leaderEpochValue !== leaderEpoch) {
      throw new SluiceError(
        'NOT_LEADER_OR_FOLLOWER',
        `${this.topic}-${this.partition} is no longer following leader epoch ${leaderEpoch}`,
      )
    }
  }

  /** KIP-279: a new leader records where its epoch starts, before any append of the epoch. */
  private async stampLeaderEpoch(epoch: number): Promise<void> {
    await this.log.exclusively(async () => {
      if (this.roleValue !== 'leader' || this.leaderEpochValue !== epoch) return
      await this.log.assignLeaderEpoch(epoch)
      this.leaderEpochStartOffset = this.log.logEndOffset
    })
  }

  /**
   * A deposed leader that wrote nothing in its epoch has that epoch at its log end in the cache;
   * other replicas may never have heard of it. Truncating at the log end drops such entries
   * before the first follower append (PartitionLog.truncateTo, as Kafka's truncateTo).
   */
  private async dropUnusedLeaderEpoch(): Promise<void> {
    await this.log.exclusively(async () => {
      if (this.roleValue !== 'follower') return
      await this.log.truncateTo(this.log.logEndOffset)
    })
  }

  /** The HW policy; see the module comment. */
  private maybeAdvanceHighWatermark(): void {
    if (this.roleValue !== 'leader') return
    const nowMs = this.now()
    const maximal = this.maximalIsr
    let candidate = this.log.logEndOffset
    for (const f of this.followers.all()) {
      if (f.logEndOffset >= candidate) continue
      // A caught-up follower outside the ISR is about to join, so it holds the HW too (Kafka's
      // maybeIncrementLeaderHW), but only while it is registered: a stopped broker must not hold
      // acks=all writes for replicaLagMaxMs after the controller took it out of the ISR.
      if (
        maximal.includes(f.brokerId) ||
        (this.followers.isCaughtUp(f.brokerId, nowMs, this.lagMaxMs) && (this.hooks.isBrokerLive?.(f.brokerId) ?? true))
      )
        candidate = f.logEndOffset
    }
    // A maximal-ISR member this leader has no state for (not in the replica list it knows) holds the HW.
    if (maximal.some((id) => id !== this.brokerId && this.followers.get(id) === undefined)) return
    if (candidate <= this.hw) return
    if (traceOn) traceHop('hw-advanced', this.brokerId, this.topic, this.partition, this.hw, candidate)
    this.hw = candidate
    const bytes = this.unreportedBytes
    this.unreportedBytes = 0
    this.waiters.release(this.hw, this.maximalIsr.length)
    this.hooks.onHighWatermarkAdvanced(this.key, bytes)
  }

  private event(event: string, details: Record<string, unknown>): void {
    this.hooks.onEvent?.(event, { topic: this.topic, partition: this.partition, ...details })
  }
}
