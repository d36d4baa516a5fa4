/**
 * The replicas this broker hosts: one Partition per topic-partition whose replica list names
 * this broker, each with its PartitionLog from the LogManager.
 *
 * Invariants:
 * - A Partition exists exactly for the partitions whose latest state lists this broker as a
 *   replica (once `applyDelta` for that state has finished).
 * - A log is deleted when its topic is deleted, when the partition disappears from a full
 *   snapshot, when this broker is no longer in its replica list, or when the topic was
 *   recreated under the same name (a different topic id). Logs on disk that the controller never
 *   mentions are left alone (they may belong to a topic a lost metadata store forgot).
 * - Deltas are applied one at a time (the metadata session serialises them); a failure on one
 *   partition is logged and does not stop the others. Within a delta, removals come first, then
 *   the partition states, up to APPLY_CONCURRENCY at once (each names a different partition, so
 *   they touch disjoint replicas and logs; creating a log costs a few fs round trips, and one at a
 *   time made a 1,000-partition topic take seconds to appear).
 * - Replication: a replica that follows a live leader is followed by exactly one fetcher (the
 *   ReplicaFetcherManager's, for that leader); leaders and leaderless replicas are followed by
 *   none. One timer for all partitions runs the ISR shrink check every replicaLagMaxMs / 2, and one
 *   per data dir writes that dir's high-watermark checkpoint; idle partitions cost no timer of their own.
 */
import path from 'node:path'
import type { Logger } from 'pino'
import { systemClock, type Clock, type Timer, type TopicConfig } from '@sluice/protocol'
import { boundedEach, logConfigFromTopicConfig, type LogStore } from './log/index.js'
import { partitionKey, type MetadataDelta, type PartitionStateView } from './metadata-cache.js'
import { Partition, type PartitionHooks } from './partition.js'
import { HighWatermarkCheckpointer } from './replication/hw-checkpoint.js'
import type { ReplicaFetcherManager } from './replication/replica-fetcher-manager.js'

/** Partition states of one delta applied at once (log creation is fs round trips, not CPU). */
const APPLY_CONCURRENCY = 32

export interface ReplicaManagerOptions {
  readonly brokerId: number
  /** The broker's storage: one data dir (LogManager) or several (LogDirs). */
  readonly logManager: LogStore
  readonly logger: Logger
  readonly hooks: PartitionHooks
  /** Absent: no replication (followers do not fetch), as in unit tests. */
  readonly fetchers?: ReplicaFetcherManager
  /** replica.lag.time.max.ms (default 30000). */
  readonly replicaLagMaxMs?: number
  /** HWs read from the replication-offset-checkpoint at start, by partitionKey. */
  readonly initialHighWatermarks?: Map<string, bigint>
  /** Default 5000; 0 disables the checkpoint (tests of other things). */
  readonly highWatermarkCheckpointIntervalMs?: number
  /** Drives the ISR shrink timer and every replica's lag decisions (default: systemClock). */
  readonly clock?: Clock
}

export class ReplicaManager {
  private readonly partitions = new Map<string, Partition>()
  /** Keys of partitions this broker leads that have followers: the only ones the ISR shrink check visits. */
  private readonly leadersWithFollowers = new Set<string>()
  private readonly logger: Logger
  private readonly clock: Clock
  private readonly shrinkTimer: Timer
  /** One replication-offset-checkpoint per data dir, holding the partitions stored there (as Kafka). */
  private readonly checkpointers: HighWatermarkCheckpointer[] = []
  private closed = false

  constructor(private readonly options: ReplicaManagerOptions) {
    this.logger = options.logger
    this.clock = options.clock ?? systemClock
    const lagMs = options.replicaLagMaxMs ?? 30_000
    this.shrinkTimer = this.clock.setInterval(() => this.shrinkIsrs(), Math.max(5, Math.floor(lagMs / 2))).unref()
    const interval = options.highWatermarkCheckpointIntervalMs ?? 5000
    if (interval > 0) {
      const dirs = options.logManager.dataDirs
      for (const dataDir of dirs) {
        const here = path.resolve(dataDir)
        const checkpointer = new HighWatermarkCheckpointer({
          dataDir,
          intervalMs: interval,
          logger: options.logger,
          clock: this.clock,
          entries: () =>
            [...this.partitions.values()]
              .filter((p) => dirs.length === 1 || path.dirname(path.resolve(p.log.dir)) === here)
              .map((p) => ({ topic: p.topic, partition: p.partition, highWatermark: p.highWatermark })),
        })
        checkpointer.start()
        this.checkpointers.push(checkpointer)
      }
    }
  }

  private markCheckpointDirty(): void {
    for (const c of this.checkpointers) c.markDirty()
  }

  /** Writes the high-watermark checkpoint now (if anything changed). @internal visible for testing */
  async checkpointHighWatermarks(): Promise<void> {
    await Promise.all(this.checkpointers.map(async (c) => await c.write()))
  }

  /** The ISR shrink check of every partition this broker leads with followers (one timer for all). */
  shrinkIsrs(): void {
    for (const key of this.leadersWithFollowers) {
      const p = this.partitions.get(key)
      if (p?.isLeader === true) p.maybeShrinkIsr()
    }
  }

  get(topic: string, partition: number): Partition | undefined {
    return this.partitions.get(partitionKey(topic, partition))
  }

  /** Hosted replicas. @internal visible for testing */
  list(): Partition[] {
    return [...this.partitions.values()]
  }

  async applyDelta(delta: MetadataDelta): Promise<void> {
    for (const { topic, partition } of delta.removed) {
      await this.guard(topic, partition, () => this.remove(topic, partition, 'the partition no longer exists'))
    }
    await boundedEach(delta.upserted, APPLY_CONCURRENCY, (state) =>
      this.guard(state.topic, state.partition, () => this.upsert(state, delta.topicConfig(state.topic))),
    )
    // A config change alone (AlterConfigs) reaches the hosted logs through getOrCreateLog too.
    const configTopics = new Set(delta.configTopics)
    for (const replica of [...this.partitions.values()]) {
      if (!configTopics.has(replica.topic)) continue
      const config = logConfigFromTopicConfig(delta.topicConfig(replica.topic))
      await this.guard(replica.topic, replica.partition, async () => {
        await this.options.logManager.getOrCreateLog(replica.topic, replica.partition, config)
      })
    }
  }

  /**
   * Stops the fetchers, waits for queued appends and stops every replica, then writes the final
   * high-watermark checkpoint (the logs stay open: LogManager owns them).
   */
  async close(): Promise<void> {
    this.closed = true
    this.shrinkTimer.cancel()
    await this.options.fetchers?.stop()
    const all = [...this.partitions.values()]
    await Promise.all(all.map((p) => p.close()))
    for (const c of this.checkpointers) {
      try {
        await c.stop()
      } catch (err) {
        this.logger.warn({ err }, 'writing the final high-watermark checkpoint failed')
      }
    }
    this.partitions.clear()
    this.leadersWithFollowers.clear()
  }

  private async upsert(state: PartitionStateView, config: TopicConfig): Promise<void> {
    const key = partitionKey(state.topic, state.partition)
    const hosted = state.replicas.includes(this.options.brokerId)
    let existing = this.partitions.get(key)
    if (!hosted) {
      if (existing !== undefined || this.options.logManager.getLog(state.topic, state.partition) !== undefined) {
        await this.remove(state.topic, state.partition, 'this broker is no longer a replica')
      }
      return
    }
    if (
      existing !== undefined &&
      existing.topicId !== '' &&
      state.topicId !== '' &&
      existing.topicId !== state.topicId
    ) {
      await this.remove(state.topic, state.partition, 'the topic was recreated')
      existing = undefined
    }
    // getOrCreateLog also hands an existing log the topic's current config.
    const log = await this.options.logManager.getOrCreateLog(
      state.topic,
      state.partition,
      logConfigFromTopicConfig(config),
    )
    let replica = this.partitions.get(key)
    if (replica === undefined) {
      const initialHighWatermark = this.options.initialHighWatermarks?.get(key)
      this.options.initialHighWatermarks?.delete(key) // only the first incarnation may use it
      replica = new Partition(state.topic, state.partition, key, log, this.options.brokerId, this.options.hooks, {
        replicaLagMaxMs: this.options.replicaLagMaxMs,
        initialHighWatermark,
        clock: this.clock,
        onHighWatermarkChange: () => this.markCheckpointDirty(),
      })
      this.partitions.set(key, replica)
      this.markCheckpointDirty()
    }
    const wasLeader = replica.isLeader
    await replica.applyState(state)
    if (replica.isLeader && replica.replicas.some((id) => id !== this.options.brokerId))
      this.leadersWithFollowers.add(key)
    else this.leadersWithFollowers.delete(key)
    if (!this.closed && replica.role === 'follower' && state.leader >= 0) {
      this.options.fetchers?.follow(replica, state.leader, state.leaderEpoch)
    } else {
      this.options.fetchers?.unfollow(key)
    }
    if (replica.isLeader !== wasLeader) {
      this.logger.info(
        {
          topic: state.topic,
          partition: state.partition,
          role: replica.role,
          leaderEpoch: state.leaderEpoch,
          logEndOffset: String(log.logEndOffset),
        },
        'replica role changed',
      )
    }
  }

  private async remove(topic: string, partition: number, reason: string): Promise<void> {
    const key = partitionKey(topic, partition)
    const replica = this.partitions.get(key)
    this.partitions.delete(key)
    this.leadersWithFollowers.delete(key)
    this.markCheckpointDirty()
    this.options.fetchers?.unfollow(key)
    if (replica !== undefined) await replica.close()
    if (this.options.logManager.getLog(topic, partition) !== undefined) {
      await this.options.logManager.deleteLog(topic, partition)
      this.logger.info({ topic, partition, reason }, 'replica log deleted')
    }
  }

  private async guard(topic: string, partition: number, fn: () => Promise<void>): Promise<void> {
    try {
      await fn()
    } catch (err) {
      this.logger.error({ err, topic, partition }, 'could not apply the partition state; the replica is not served')
      const key = partitionKey(topic, partition)
      const replica = this.partitions.get(key)
      if (replica !== undefined) {
        this.partitions.delete(key)
        this.leadersWithFollowers.delete(key)
        this.markCheckpointDirty()
        this.options.fetchers?.unfollow(key)
        await replica.close().catch(() => undefined)
      }
    }
  }
}
