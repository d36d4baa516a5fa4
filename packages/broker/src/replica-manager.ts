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
 *   partition is logged and does not stop the others.
 */
import type { Logger } from 'pino'
import type { TopicConfig } from '@sluice/protocol'
import { logConfigFromTopicConfig, type LogManager } from './log/index.js'
import { partitionKey, type MetadataDelta, type PartitionStateView } from './metadata-cache.js'
import { Partition, type PartitionHooks } from './partition.js'

export interface ReplicaManagerOptions {
  readonly brokerId: number
  readonly logManager: LogManager
  readonly logger: Logger
  readonly hooks: PartitionHooks
}

export class ReplicaManager {
  private readonly partitions = new Map<string, Partition>()
  private readonly logger: Logger

  constructor (private readonly options: ReplicaManagerOptions) {
    this.logger = options.logger
  }

  get (topic: string, partition: number): Partition | undefined {
    return this.partitions.get(partitionKey(topic, partition))
  }

  /** Hosted replicas. @internal visible for testing */
  list (): Partition[] { return [...this.partitions.values()] }

  async applyDelta (delta: MetadataDelta): Promise<void> {
    for (const { topic, partition } of delta.removed) {
      await this.guard(topic, partition, () => this.remove(topic, partition, 'the partition no longer exists'))
    }
    for (const state of delta.upserted) {
      await this.guard(state.topic, state.partition, () => this.upsert(state, delta.topicConfig(state.topic)))
    }
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

  /** Waits for queued appends and stops every replica (the logs stay open: LogManager owns them). */
  async close (): Promise<void> {
    const all = [...this.partitions.values()]
    this.partitions.clear()
    await Promise.all(all.map((p) => p.close()))
  }

  private async upsert (state: PartitionStateView, config: TopicConfig): Promise<void> {
    const key = partitionKey(state.topic, state.partition)
    const hosted = state.replicas.includes(this.options.brokerId)
    let existing = this.partitions.get(key)
    if (!hosted) {
      if (existing !== undefined || this.options.logManager.getLog(state.topic, state.partition) !== undefined) {
        await this.remove(state.topic, state.partition, 'this broker is no longer a replica')
      }
      return
    }
    if (existing !== undefined && existing.topicId !== '' && state.topicId !== '' && existing.topicId !== state.topicId) {
      await this.remove(state.topic, state.partition, 'the topic was recreated')
      existing = undefined
    }
    // getOrCreateLog also hands an existing log the topic's current config.
    const log = await this.options.logManager.getOrCreateLog(state.topic, state.partition, logConfigFromTopicConfig(config))
    let replica = this.partitions.get(key)
    if (replica === undefined) {
      replica = new Partition(state.topic, state.partition, key, log, this.options.brokerId, this.options.hooks)
      this.partitions.set(key, replica)
    }
    const wasLeader = replica.isLeader
    replica.applyState(state)
    if (replica.isLeader !== wasLeader) {
      this.logger.info({ topic: state.topic, partition: state.partition, role: replica.role, leaderEpoch: state.leaderEpoch,
        logEndOffset: String(log.logEndOffset) }, 'replica role changed')
    }
  }

  private async remove (topic: string, partition: number, reason: string): Promise<void> {
    const key = partitionKey(topic, partition)
    const replica = this.partitions.get(key)
    this.partitions.delete(key)
    if (replica !== undefined) await replica.close()
    if (this.options.logManager.getLog(topic, partition) !== undefined) {
      await this.options.logManager.deleteLog(topic, partition)
      this.logger.info({ topic, partition, reason }, 'replica log deleted')
    }
  }

  private async guard (topic: string, partition: number, fn: () => Promise<void>): Promise<void> {
    try {
      await fn()
    } catch (err) {
      this.logger.error({ err, topic, partition }, 'could not apply the partition state; the replica is not served')
      const key = partitionKey(topic, partition)
      const replica = this.partitions.get(key)
      if (replica !== undefined) {
        this.partitions.delete(key)
        await replica.close().catch(() => undefined)
      }
    }
  }
}
