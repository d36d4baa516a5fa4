/**
 * The group consumer: Kafka's subscribe() model. GroupMembership joins the group and hands this
 * class assignments; the delivery core (../delivery-core.ts, shared with the assign consumer)
 * fetches and hands messages out in rotation across partitions, through the hooks below that
 * add safe points, in-flight positions, retries and the dead-letter topic.
 *
 * Invariants:
 * - Rebalance work (revoking, assigning, listener calls) runs only at a safe point (safe-points.ts): when the
 *   application is not processing a message or batch of this consumer (Kafka runs it inside
 *   poll()). So a revoked partition's processed position is final when it is committed, and no
 *   record of a partition is processed after its revocation.
 * - Per partition, the position to commit is the offset of the record being processed, if any,
 *   else the next offset to deliver: a record counts as processed once its callback returned
 *   (or the iterator asked for the next one).
 * - A callback that fails for good moves its partition back to the failed record, so nothing is
 *   skipped: the record is delivered again by the next run(), or read by the next owner.
 * - "Polling" means waiting for the next message; the max poll interval is measured from the
 *   last time the application returned control (GroupMembership leaves the group past it).
 */
import { SluiceError } from '@sluice/protocol'
import type { Logger } from '../../logger.js'
import type { ConnectionPool } from '../../network/connection-pool.js'
import type { MetadataCache } from '../../network/metadata-cache.js'
import type { ResolvedConnectOptions } from '../../options.js'
import type { Producer } from '../../producer/producer.js'
import { AdminImpl } from '../../admin/admin.js'
import type { ConsumerMessage, TopicPartition } from '../consumer-types.js'
import { DeliveryCore, type Delivered } from '../delivery-core.js'
import type { FetcherOptions } from '../fetcher.js'
import { tpKey, type PartitionState } from '../subscription.js'
import { CoordinatorClient } from './coordinator-client.js'
import { sendToDeadLetter, withAttempts } from './dead-letter.js'
import type { ResolvedGroupOptions } from './group-options.js'
import type { CommitOffset, GroupConsumer, GroupMetadata, GroupRunOptions } from './group-types.js'
import { GroupMembership, type MembershipHost } from './membership.js'
import { OffsetCommitter } from './offset-committer.js'
import { SafePoints } from './safe-points.js'

export class GroupConsumerImpl extends DeliveryCore<GroupRunOptions> implements GroupConsumer, MembershipHost {
  protected readonly lostAs = 'revoked'
  /** Wake at least every second while waiting, so rebalance work queued meanwhile gets its safe point. */
  protected override readonly idleWakeMs = 1000
  private readonly coordinator: CoordinatorClient
  private readonly membership: GroupMembership
  private readonly committer: OffsetCommitter
  private topics: string[] = []
  private pattern: RegExp | undefined
  private subscribed = false
  private started = false
  private closing: Promise<void> | undefined
  private readonly safePoints: SafePoints
  private readonly inFlight = new Map<string, bigint>()
  /** The message the iterator handed out last, until the application asks for the next one. */
  private handedOut: { s: PartitionState; offset: bigint } | undefined
  private commitChain: Promise<void> = Promise.resolve()
  private timers: NodeJS.Timeout[] = []
  private deadLetterProducer: Producer | undefined

  constructor(
    cache: MetadataCache,
    pool: ConnectionPool,
    fetcherOptions: FetcherOptions,
    private readonly options: ResolvedGroupOptions,
    private readonly client: ResolvedConnectOptions,
    private readonly log: Logger,
    private readonly newProducer: () => Producer,
  ) {
    super(cache, pool, fetcherOptions, log)
    this.safePoints = new SafePoints(
      this.subs,
      () => this.closed,
      () => {
        if (this.membership.state === 'left') this.membership.notify() // it left for a poll timeout
      },
    )
    this.coordinator = new CoordinatorClient(cache, pool, client)
    this.committer = new OffsetCommitter(this.coordinator, options.groupId)
    this.membership = new GroupMembership(
      this.coordinator,
      this,
      {
        groupId: options.groupId,
        groupInstanceId: options.groupInstanceId,
        sessionTimeoutMs: options.sessionTimeoutMs,
        heartbeatIntervalMs: options.heartbeatIntervalMs,
        maxPollIntervalMs: options.maxPollIntervalMs,
        assignors: options.assignors,
        clientId: client.clientId,
        requestTimeoutMs: client.requestTimeoutMs,
        retry: client.retry,
      },
      log,
    )
  }

  // ---- subscription and state ----

  subscribe(subscription: { topics: string[] | RegExp }): void {
    this.assertOpen()
    const t = subscription?.topics
    if (t instanceof RegExp) {
      this.pattern = new RegExp(`^(?:${t.source})$`, t.flags.replace(/[gy]/g, ''))
      this.topics = []
    } else if (Array.isArray(t) && t.length > 0 && t.every((x) => typeof x === 'string' && x !== '')) {
      this.pattern = undefined
      this.topics = [...new Set(t)].sort()
    } else {
      throw new TypeError('subscribe() needs { topics: string[] } (non-empty names) or { topics: RegExp }')
    }
    this.subscribed = true
    if (this.started) {
      if (this.pattern !== undefined) void this.refreshPattern()
      this.membership.requestRejoin('subscription changed')
    }
  }

  subscription(): string[] {
    return [...this.topics]
  }

  enforceRebalance(reason = 'the application asked for a rebalance'): void {
    this.assertOpen()
    if (this.started) this.membership.requestRejoin(reason)
  }
  groupMetadata(): GroupMetadata {
    return {
      groupId: this.options.groupId,
      ...(this.options.groupInstanceId !== '' ? { groupInstanceId: this.options.groupInstanceId } : {}),
      memberId: this.membership.memberId,
      generationId: this.membership.generationId,
    }
  }

  // ---- offsets ----

  async committed(tps?: TopicPartition[]): Promise<CommitOffset[]> {
    const list = tps ?? this.assignment()
    const offsets = await this.committer.fetchCommitted(list)
    return list.map((tp) => {
      const c = offsets.get(tpKey(tp.topic, tp.partition))
      return {
        topic: tp.topic,
        partition: tp.partition,
        offset: c?.offset ?? -1n,
        ...(c !== undefined && c.metadata !== '' ? { metadata: c.metadata } : {}),
      }
    })
  }

  async commit(offsets?: CommitOffset[]): Promise<void> {
    await this.doCommit(offsets ?? this.processedOffsets(), true)
  }

  async commitAsync(offsets?: CommitOffset[]): Promise<void> {
    const p = this.doCommit(offsets ?? this.processedOffsets(), false)
    p.catch((err: unknown) => {
      this.log.warn({ err, groupId: this.options.groupId }, 'async commit failed')
    })
    return await p
  }

  /** Positions to commit, skipping partitions whose position is already committed. */
  private processedOffsets(tps?: readonly TopicPartition[]): CommitOffset[] {
    const out: CommitOffset[] = []
    const parts =
      tps === undefined ? [...this.subs.partitions.values()] : tps.map((tp) => this.subs.get(tp.topic, tp.partition))
    for (const s of parts) {
      if (s === undefined) continue
      const offset = this.inFlight.get(s.key) ?? s.position
      if (offset === undefined || this.committer.lastCommitted.get(s.key) === offset) continue
      out.push({ topic: s.topic, partition: s.partition, offset })
    }
    return out
  }

  private async doCommit(offsets: CommitOffset[], retry: boolean): Promise<void> {
    if (!Array.isArray(offsets)) throw new TypeError('commit() takes an array of { topic, partition, offset }')
    for (const o of offsets) {
      if (
        o === null ||
        typeof o !== 'object' ||
        typeof o.topic !== 'string' ||
        !Number.isInteger(o.partition) ||
        typeof o.offset !== 'bigint' ||
        o.offset < 0n
      ) {
        throw new TypeError('every commit offset needs a topic, an integer partition and a bigint offset >= 0')
      }
    }
    if (offsets.length === 0) return
    if (!this.membership.inGeneration) {
      throw new SluiceError(
        'REBALANCE_IN_PROGRESS',
        `cannot commit: member ${this.membership.memberId || '(none)'} is not in a generation of group ${this.options.groupId}`,
      )
    }
    // One OffsetCommit in flight at a time, in call order: an older commit answered after a newer
    // one must not move the committed offset back.
    // The identity is taken now: positions computed in one generation are never sent with the next.
    const who = {
      generationId: this.membership.generationId,
      memberId: this.membership.memberId,
      groupInstanceId: this.options.groupInstanceId,
    }
    const previous = this.commitChain
    const mine = (async () => {
      await previous.catch(() => {})
      await this.committer.commit(offsets, who, { retry })
    })()
    this.commitChain = mine.catch(() => {})
    try {
      await mine
    } catch (err) {
      if (
        err instanceof SluiceError &&
        ['ILLEGAL_GENERATION', 'UNKNOWN_MEMBER_ID', 'REBALANCE_IN_PROGRESS'].includes(err.code)
      ) {
        this.membership.requestRejoin(`commit failed: ${err.code}`)
      }
      throw err
    }
  }

  // ---- MembershipHost ----

  subscribedTopics(): string[] {
    return [...this.topics]
  }

  ownedPartitions(): TopicPartition[] {
    return this.assignment()
  }

  async revokeAll(): Promise<void> {
    await this.safePoints.run(async () => {
      await this.revoke(this.assignment(), { commit: this.options.autoCommit })
    })
  }

  async loseAll(): Promise<void> {
    await this.safePoints.run(async () => {
      const all = this.assignment()
      if (all.length === 0) return
      const l = this.options.rebalanceListener
      await this.callListener('onPartitionsLost', async () => {
        await (l.onPartitionsLost ?? l.onPartitionsRevoked)?.call(l, all)
      })
      this.drop(all)
    })
  }

  async applyAssignment(partitions: TopicPartition[]): Promise<TopicPartition[]> {
    return await this.safePoints.run(async () => {
      const wanted = new Set(partitions.map((tp) => tpKey(tp.topic, tp.partition)))
      const revoked = this.assignment().filter((tp) => !wanted.has(tpKey(tp.topic, tp.partition)))
      const added = partitions.filter((tp) => this.subs.get(tp.topic, tp.partition) === undefined)
      if (revoked.length > 0) await this.revoke(revoked, { commit: this.options.autoCommit })
      if (added.length > 0) await this.startPartitions(added)
      await this.callListener('onPartitionsAssigned', async () => {
        await this.options.rebalanceListener.onPartitionsAssigned?.(added)
      })
      this.fetcher.start()
      this.subs.notify()
      return revoked
    })
  }

  async partitionCounts(topics: string[]): Promise<Map<string, number>> {
    const counts = new Map<string, number>()
    // deadlineMs 1: one metadata refresh, no retries; a topic that does not exist is not assigned.
    await Promise.all(
      topics.map(async (t) => {
        const info = await this.cache.topic(t, { fresh: true, deadlineMs: 1 }).catch(() => undefined)
        if (info !== undefined && !info.isInternal) counts.set(t, info.partitions.length)
      }),
    )
    return counts
  }

  pollExpired(): boolean {
    const polling = this.delivering && !this.safePoints.appHoldsControl
    return !polling && Date.now() - this.safePoints.lastPollMs > this.options.maxPollIntervalMs
  }

  fail(err: SluiceError): void {
    this.log.error({ err, groupId: this.options.groupId }, 'the consumer left the group for good')
    this.failure = err
    this.subs.notify()
  }

  private async revoke(tps: TopicPartition[], options: { commit: boolean }): Promise<void> {
    if (tps.length === 0) return
    if (options.commit && this.membership.inGeneration) {
      await this.doCommit(this.processedOffsets(tps), true).catch((err: unknown) => {
        this.log.warn({ err, groupId: this.options.groupId }, 'commit before revoking partitions failed')
      })
    }
    await this.callListener('onPartitionsRevoked', async () => {
      await this.options.rebalanceListener.onPartitionsRevoked?.(tps)
    })
    this.drop(tps)
  }

  private drop(tps: TopicPartition[]): void {
    for (const tp of tps) {
      const k = tpKey(tp.topic, tp.partition)
      this.subs.partitions.delete(k)
      this.inFlight.delete(k)
      this.committer.lastCommitted.delete(k)
    }
    this.subs.notify()
  }

  /** Start positions: the committed offset, else autoOffsetReset ('none': a typed error on the partition). */
  private async startPartitions(tps: TopicPartition[]): Promise<void> {
    const committed = await this.committer.fetch(tps)
    for (const tp of tps) {
      const k = tpKey(tp.topic, tp.partition)
      const c = committed.get(k) ?? -1n
      const s = this.subs.add(tp.topic, tp.partition)
      if (c >= 0n) {
        this.committer.lastCommitted.set(k, c)
        this.subs.seek(s, c)
      } else if (this.options.autoOffsetReset === 'none') {
        this.subs.seek(s, 0n)
        s.error = new SluiceError(
          'OFFSET_OUT_OF_RANGE',
          `no committed offset for ${tp.topic}/${tp.partition} in group ${this.options.groupId} and autoOffsetReset is 'none'`,
          { topic: tp.topic, partition: tp.partition, noCommittedOffset: true },
        )
        s.stopped = true
      } else {
        this.subs.seek(s, this.options.autoOffsetReset === 'earliest' ? 'beginning' : 'end')
      }
    }
  }

  private async callListener(name: string, fn: () => Promise<void>): Promise<void> {
    try {
      await fn()
    } catch (err) {
      this.log.error({ err, groupId: this.options.groupId, listener: name }, 'rebalance listener failed')
    }
  }

  /** Delivery ended: the application holds nothing any more; run what waited for that. */
  private releaseControl(): void {
    if (!this.safePoints.appHoldsControl) return
    this.safePoints.reached().catch((err: unknown) => {
      this.log.error({ err }, 'rebalance work failed')
    })
  }

  // ---- delivery (hooks of the delivery core) ----

  /** seek() moves the partition away from the message in flight: nothing of it is in flight any more. */
  protected override beforeSeek(s: PartitionState): void {
    this.inFlight.delete(s.key)
  }

  protected override checkRunOptions(options: GroupRunOptions): void {
    const r = options.retry
    if (
      r !== undefined &&
      (!Number.isInteger(r.attempts) || r.attempts < 1 || !Number.isInteger(r.backoffMs) || r.backoffMs < 0)
    ) {
      throw new RangeError('retry needs attempts >= 1 and backoffMs >= 0 (integers)')
    }
    if (
      options.deadLetterTopic !== undefined &&
      (typeof options.deadLetterTopic !== 'string' ||
        options.deadLetterTopic === '' ||
        options.eachMessage === undefined ||
        options.eachBatch !== undefined)
    ) {
      throw new TypeError('deadLetterTopic must be a topic name and needs eachMessage (not eachBatch)')
    }
  }

  protected override assertCanDeliver(): void {
    if (!this.subscribed) throw new SluiceError('INVALID_ARGUMENT', 'subscribe() before consuming from a group')
  }

  protected override deliveryStarted(): void {
    this.safePoints.lastPollMs = Date.now()
    this.start()
  }

  protected override deliveryEnded(): void {
    // Leaving the iterator (break) after a message counts it as processed.
    if (this.handedOut !== undefined) this.processed(this.handedOut.s, this.handedOut.offset)
    this.handedOut = undefined
    this.releaseControl()
  }

  /** Taking the next batch is a poll: rebalance work waiting for a safe point runs first. */
  protected override pollPoint(): Promise<void> {
    return this.safePoints.reached()
  }

  protected override beforeHandOut(): Promise<void> {
    return this.safePoints.takeControl()
  }

  protected handOut({ s, generation, batch }: Delivered, i: number): boolean {
    if (!this.take(s, generation, batch.messages, i)) return false
    this.handedOut = { s, offset: batch.messages[i]!.offset }
    return true
  }

  protected override handedBack({ s, batch }: Delivered, i: number): Promise<void> {
    this.handedOut = undefined
    this.processed(s, batch.messages[i]!.offset)
    return this.safePoints.reached()
  }

  protected async runMessages(
    { s, generation, batch }: Delivered,
    options: GroupRunOptions,
    signal: AbortSignal,
  ): Promise<void> {
    const messages = batch.messages
    for (let i = 0; i < messages.length; i++) {
      const m = messages[i]!
      await this.safePoints.takeControl()
      if (signal.aborted || !this.take(s, generation, messages, i)) break
      const result = await withAttempts(
        () => options.eachMessage!({ message: m, topic: m.topic, partition: m.partition }),
        options.retry,
        signal,
      )
      if (result.ok === false && options.deadLetterTopic !== undefined) {
        this.deadLetterProducer ??= this.newProducer()
        try {
          await sendToDeadLetter(this.deadLetterProducer, options.deadLetterTopic, m, result.error, result.attempts)
        } catch (err) {
          this.rewind(s, generation, m.offset)
          throw err
        }
        this.log.warn(
          { topic: m.topic, partition: m.partition, offset: m.offset, deadLetterTopic: options.deadLetterTopic },
          'record sent to the dead-letter topic',
        )
      } else if (result.ok !== true) {
        this.rewind(s, generation, m.offset)
        if (result.ok === 'stopped') return
        throw result.error
      }
      this.processed(s, m.offset)
      await this.safePoints.reached()
    }
  }

  protected async runBatch(
    { s, generation, batch }: Delivered,
    options: GroupRunOptions,
    signal: AbortSignal,
  ): Promise<void> {
    await this.safePoints.takeControl()
    if (!this.owns(s, generation) || signal.aborted) return
    const first = batch.messages[0]!.offset
    s.position = batch.messages[batch.messages.length - 1]!.offset + 1n
    this.hold(s, first)
    const result = await withAttempts(() => options.eachBatch!({ batch }), options.retry, signal)
    if (result.ok !== true) {
      this.rewind(s, generation, first)
      if (result.ok === 'stopped') return
      throw result.error
    }
    if (this.owns(s, generation)) this.inFlight.delete(s.key)
    await this.safePoints.reached()
  }

  /**
   * Hands message `i` out if the partition is still this consumer's and not paused: the position
   * moves past it and it is in flight. pause() also stops a batch being delivered: the rest goes
   * back to the buffer for resume().
   */
  private take(s: PartitionState, generation: number, messages: ConsumerMessage[], i: number): boolean {
    if (!this.owns(s, generation) || this.putBackIfPaused(s, messages, i)) return false
    const offset = messages[i]!.offset
    s.position = offset + 1n
    this.hold(s, offset)
    return true
  }

  private putBackIfPaused(s: PartitionState, messages: ConsumerMessage[], from: number): boolean {
    if (!s.paused) return false
    s.buffered = [...messages.slice(from), ...s.buffered]
    return true
  }

  private hold(s: PartitionState, offset: bigint): void {
    this.inFlight.set(s.key, offset)
    this.safePoints.appHoldsControl = true
  }

  private processed(s: PartitionState, offset: bigint): void {
    if (this.inFlight.get(s.key) === offset && this.subs.partitions.get(s.key) === s) this.inFlight.delete(s.key)
  }

  /** A record failed for good (or the run stopped mid-retry): deliver it again next time. */
  private rewind(s: PartitionState, generation: number, offset: bigint): void {
    if (!this.owns(s, generation)) return
    this.inFlight.delete(s.key)
    this.subs.seek(s, offset)
  }

  private owns(s: PartitionState, generation: number): boolean {
    return !this.closed && s.generation === generation && this.subs.partitions.get(s.key) === s
  }

  private start(): void {
    if (this.started) {
      this.membership.notify()
      return
    }
    this.started = true
    const every = (ms: number, fn: () => void): void => {
      const t = setInterval(fn, ms)
      t.unref()
      this.timers.push(t)
    }
    if (this.options.autoCommit) {
      every(this.options.autoCommitIntervalMs, () => {
        if (this.membership.state === 'stable') this.commitAsync().catch(() => {})
      })
    }
    every(this.options.metadataMaxAgeMs, () => {
      void this.checkMetadata()
    })
    // A topic just created may not be in the brokers' metadata yet when the leader assigns:
    // look again soon rather than after metadataMaxAgeMs.
    every(Math.min(1000, this.options.metadataMaxAgeMs), () => {
      if (this.membership.isLeader && this.membership.missingTopics.length > 0) void this.checkMetadata()
    })
    void (async () => {
      if (this.pattern !== undefined) await this.refreshPattern()
      this.membership.start()
    })()
  }

  /** Re-resolves a pattern subscription; the leader also rebalances when partition counts changed. */
  private async checkMetadata(): Promise<void> {
    if (this.pattern !== undefined) await this.refreshPattern()
    const used = this.membership.assignedCounts
    if (this.membership.isLeader && used !== undefined) {
      const missing = this.membership.missingTopics
      const now = await this.partitionCounts([...used.keys(), ...missing])
      if ([...used].some(([t, n]) => now.get(t) !== n) || missing.some((t) => now.has(t))) {
        this.membership.requestRejoin('partition counts changed')
      }
    }
  }

  private async refreshPattern(): Promise<void> {
    const pattern = this.pattern
    if (pattern === undefined) return
    try {
      const names = await new AdminImpl(this.cache, this.pool, this.client).listTopics()
      const matched = names.filter((n) => pattern.test(n)).sort()
      if (this.pattern !== pattern) return
      if (matched.join('\u0000') !== this.topics.join('\u0000')) {
        this.topics = matched
        this.membership.requestRejoin('the pattern matches a different set of topics')
      }
    } catch (err) {
      this.log.warn({ err, groupId: this.options.groupId }, 'resolving the subscription pattern failed')
    }
  }

  // ---- close ----

  async close(): Promise<void> {
    this.closing ??= this.doClose()
    await this.closing
  }

  private async doClose(): Promise<void> {
    for (const t of this.timers) clearInterval(t)
    this.timers = []
    this.closed = true
    this.subs.notify()
    // Rebalance work waiting for a safe point runs now (closing: nothing is queued any more).
    await this.safePoints.drain()
    // A rebalance round in flight would make the group refuse the final commit: let it finish and
    // start no other, so the commit carries the generation the group knows (bounded: a stuck
    // group must not block close).
    await this.membership.quiesce(Math.min(this.client.requestTimeoutMs, this.options.maxPollIntervalMs))
    if (this.started && this.membership.inGeneration) {
      await this.revoke(this.assignment(), { commit: this.options.autoCommit }).catch((err: unknown) => {
        this.log.warn({ err, groupId: this.options.groupId }, 'revoking partitions on close failed')
      })
    }
    await this.membership.close({ leave: true })
    await this.fetcher.stop()
    await this.deadLetterProducer?.close().catch(() => {})
    this.subs.notify()
  }
}
