/**
 * The broker's copy of the cluster metadata, fed by the BrokerSession stream (MetadataUpdate in
 * proto/sluice/v1/metadata.proto): live brokers, every partition's state, every topic's
 * effective config, the controller and the metadata-service endpoints. It answers the Broker
 * service's Metadata RPC and the "is this topic-partition known" checks on the data path.
 *
 * Invariants: the first update of a session is a full snapshot and replaces everything; later
 * updates are deltas (brokers is always the whole live list, partitions and topic configs are
 * upserts, deleted_topics removes a topic's partitions and config). `planUpdate` computes what an
 * update will change without touching the cache, so the replica manager can create or delete
 * logs before the cache (and with it the Metadata RPC) starts advertising the new state.
 * Single-threaded (the event loop); callers serialise updates.
 */
import {
  effectiveTopicConfig,
  isInternalTopic,
  topicNameProblem,
  TOPIC_CONFIG_SPECS,
  errorId,
  type TopicConfig,
  type wire,
} from '@sluice/protocol'

export interface BrokerView {
  readonly brokerId: number
  readonly host: string
  readonly port: number
  readonly rack: string
  readonly brokerEpoch: string
  readonly adminPort: number
  /** The broker's advertised Kafka listener; '' and 0 when it has none. */
  readonly kafkaHost: string
  readonly kafkaPort: number
}

export interface PartitionStateView {
  readonly topic: string
  readonly partition: number
  /** -1 when the partition has no leader. */
  readonly leader: number
  readonly leaderEpoch: number
  readonly replicas: readonly number[]
  readonly isr: readonly number[]
  readonly partitionEpoch: number
  readonly topicId: string
}

export interface TopicConfigView {
  readonly topicId: string
  readonly config: TopicConfig
}

/** What an update changes, in terms of partitions (for the replica manager). */
export interface MetadataDelta {
  /** New or changed partition states. */
  readonly upserted: readonly PartitionStateView[]
  /** Partitions that disappear (deleted topic, or missing from a full snapshot). */
  readonly removed: ReadonlyArray<{ topic: string; partition: number }>
  /** Topics whose config the update sets (their hosted logs get the new storage settings). */
  readonly configTopics: readonly string[]
  /** Effective config per topic as it will be after the update. */
  topicConfig(topic: string): TopicConfig
}

export interface MetadataCacheOptions {
  /** Endpoints from the broker's own config, used until the service tells us its list. */
  readonly metadataEndpoints: readonly string[]
  /** Called for topic-config entries this broker cannot parse (the entry is ignored). */
  readonly onBadConfig?: (topic: string, problem: string) => void
}

export class MetadataCache {
  private brokers = new Map<number, BrokerView>()
  private readonly topics = new Map<string, Map<number, PartitionStateView>>()
  private readonly configs = new Map<string, TopicConfigView>()
  private endpoints: string[]
  private controllerIdValue = -1
  private clusterIdValue = ''
  private readonly appliedWaiters = new Set<() => void>()
  /** Topic id -> name, rebuilt on the first lookup after an update. */
  private topicIds: Map<string, string> | undefined

  constructor(private readonly options: MetadataCacheOptions) {
    this.endpoints = [...options.metadataEndpoints]
  }

  get clusterId(): string {
    return this.clusterIdValue
  }
  get controllerId(): number {
    return this.controllerIdValue
  }
  get metadataEndpoints(): readonly string[] {
    return this.endpoints
  }

  partition(topic: string, partition: number): PartitionStateView | undefined {
    return this.topics.get(topic)?.get(partition)
  }

  hasTopic(topic: string): boolean {
    return this.topics.has(topic)
  }

  topicNames(): string[] {
    return [...this.topics.keys()]
  }

  partitionsOf(topic: string): PartitionStateView[] {
    const parts = this.topics.get(topic)
    return parts === undefined ? [] : [...parts.values()].sort((a, b) => a.partition - b.partition)
  }

  /** The topic's effective config (defaults when the service has not sent one). */
  topicConfig(topic: string): TopicConfig {
    return this.configs.get(topic)?.config ?? effectiveTopicConfig({})
  }

  broker(brokerId: number): BrokerView | undefined {
    return this.brokers.get(brokerId)
  }

  /**
   * Where Kafka clients reach a live broker's Kafka listener (what a Kafka Metadata answer lists),
   * or undefined when the broker is not live or registered without one.
   */
  kafkaEndpoint(brokerId: number): { host: string; port: number } | undefined {
    const b = this.brokers.get(brokerId)
    if (b === undefined || b.kafkaPort === 0 || b.kafkaHost === '') return undefined
    return { host: b.kafkaHost, port: b.kafkaPort }
  }

  liveBrokers(): BrokerView[] {
    return [...this.brokers.values()].sort((a, b) => a.brokerId - b.brokerId)
  }

  /** Which partitions `update` adds, changes or removes; the cache is not modified. */
  planUpdate(update: wire.MetadataUpdate__Output): MetadataDelta {
    const upserted: PartitionStateView[] = []
    const removed: Array<{ topic: string; partition: number }> = []
    const incoming = new Set<string>()
    const deleted = new Set(update.deleted_topics)
    for (const raw of update.partitions) {
      const p = toPartitionState(raw)
      if (deleted.has(p.topic)) continue
      incoming.add(key(p.topic, p.partition))
      if (!samePartitionState(this.partition(p.topic, p.partition), p)) upserted.push(p)
    }
    for (const [topic, parts] of this.topics) {
      for (const partition of parts.keys()) {
        const gone = deleted.has(topic) || (update.full && !incoming.has(key(topic, partition)))
        if (gone) removed.push({ topic, partition })
      }
    }
    const newConfigs = new Map<string, TopicConfig>()
    for (const tc of update.topic_configs) newConfigs.set(tc.topic, this.parseConfig(tc))
    return {
      upserted,
      removed,
      configTopics: [...newConfigs.keys()].filter((t) => !deleted.has(t)),
      topicConfig: (topic) => newConfigs.get(topic) ?? this.topicConfig(topic),
    }
  }

  /** Applies an update (full snapshot or delta). */
  applyUpdate(update: wire.MetadataUpdate__Output): void {
    if (update.full) {
      this.topics.clear()
      this.configs.clear()
    }
    this.brokers = new Map(update.brokers.map((b) => [b.broker_id, toBrokerView(b)]))
    for (const topic of update.deleted_topics) {
      this.topics.delete(topic)
      this.configs.delete(topic)
    }
    const deleted = new Set(update.deleted_topics)
    for (const raw of update.partitions) {
      const p = toPartitionState(raw)
      if (deleted.has(p.topic)) continue
      let parts = this.topics.get(p.topic)
      if (parts === undefined) {
        parts = new Map()
        this.topics.set(p.topic, parts)
      }
      parts.set(p.partition, p)
    }
    for (const tc of update.topic_configs) {
      if (deleted.has(tc.topic)) continue
      this.configs.set(tc.topic, { topicId: tc.topic_id, config: this.parseConfig(tc) })
    }
    this.controllerIdValue = update.controller_id // the controller fills it in every update
    // The controller lists every running metadata instance, itself first; the configured ones
    // stay behind them, so a broker can always fall back to what it was started with.
    if (update.metadata_endpoints.length > 0)
      this.endpoints = [...new Set([...update.metadata_endpoints, ...this.options.metadataEndpoints])]
    if (update.cluster_id !== '') this.clusterIdValue = update.cluster_id
    this.topicIds = undefined
    for (const check of [...this.appliedWaiters]) check()
  }

  /** The id of `topic` (Kafka's text form), or undefined when the topic or its id is not known. */
  topicIdOf(topic: string): string | undefined {
    const parts = this.topics.get(topic)
    if (parts === undefined) return undefined
    const id = topicIdOf(this.configs.get(topic), parts)
    return id === '' ? undefined : id
  }

  /** The topic with this id (the metadata service's text form), if the cache has it. */
  topicById(topicId: string): string | undefined {
    if (this.topicIds === undefined) {
      this.topicIds = new Map()
      for (const [name, parts] of this.topics) {
        const id = this.configs.get(name)?.topicId || parts.values().next().value?.topicId
        if (id !== undefined && id !== '') this.topicIds.set(id, name)
      }
    }
    return this.topicIds.get(topicId)
  }

  /**
   * Resolves true once `holds()` is true of the cache (checked now and after every update), or
   * false after `timeoutMs`. Admin answers use it so that the broker that said "created" or
   * "deleted" also shows it in its next Metadata answer, as a Kafka client expects.
   */
  whenApplied(holds: () => boolean, timeoutMs: number): Promise<boolean> {
    if (holds()) return Promise.resolve(true)
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.appliedWaiters.delete(check)
        resolve(false)
      }, timeoutMs)
      timer.unref()
      const check = (): void => {
        if (!holds()) return
        clearTimeout(timer)
        this.appliedWaiters.delete(check)
        resolve(true)
      }
      this.appliedWaiters.add(check)
    })
  }

  /** The Broker service's Metadata RPC, answered from the cache. */
  metadataResponse(request: wire.MetadataRequest__Output): wire.MetadataResponse {
    const names =
      request.topics.length > 0
        ? [...new Set(request.topics)]
        : this.topicNames()
            .filter((t) => request.include_internal || !isInternalTopic(t))
            .sort()
    return {
      cluster_id: this.clusterIdValue,
      controller_id: this.controllerIdValue,
      brokers: this.liveBrokers().map((b) => ({
        broker_id: b.brokerId,
        host: b.host,
        port: b.port,
        rack: b.rack,
        broker_epoch: b.brokerEpoch,
        admin_port: b.adminPort,
        kafka_host: b.kafkaHost,
        kafka_port: b.kafkaPort,
      })),
      topics: names.map((name) => this.topicMetadata(name)),
      metadata_endpoints: [...this.endpoints],
    }
  }

  private topicMetadata(name: string): wire.TopicMetadata {
    const problem = topicNameProblem(name)
    if (problem !== undefined) {
      return { name, error_code: errorId('INVALID_TOPIC_EXCEPTION'), error_message: problem, partitions: [] }
    }
    const parts = this.topics.get(name)
    if (parts === undefined) {
      return {
        name,
        error_code: errorId('UNKNOWN_TOPIC_OR_PARTITION'),
        error_message: `unknown topic "${name}"`,
        partitions: [],
      }
    }
    const partitions = this.partitionsOf(name).map((p) => ({
      error_code: p.leader === -1 ? errorId('LEADER_NOT_AVAILABLE') : 0,
      partition: p.partition,
      leader: p.leader,
      leader_epoch: p.leaderEpoch,
      replicas: [...p.replicas],
      isr: [...p.isr],
      offline_replicas: p.replicas.filter((r) => !this.brokers.has(r)),
    }))
    return {
      name,
      error_code: 0,
      error_message: '',
      topic_id: topicIdOf(this.configs.get(name), parts),
      is_internal: isInternalTopic(name),
      partitions,
    }
  }

  /** Effective config from the entries the service sent; unknown or bad entries are skipped. */
  private parseConfig(tc: wire.TopicConfig__Output): TopicConfig {
    const overrides: Record<string, string> = {}
    for (const entry of tc.entries) {
      if (!(entry.name in TOPIC_CONFIG_SPECS)) continue // a newer service may know more configs
      overrides[entry.name] = entry.value
    }
    try {
      return effectiveTopicConfig(overrides)
    } catch {
      const good: Record<string, string> = {}
      for (const [name, value] of Object.entries(overrides)) {
        try {
          effectiveTopicConfig({ [name]: value })
          good[name] = value
        } catch (e) {
          this.options.onBadConfig?.(tc.topic, (e as Error).message)
        }
      }
      return effectiveTopicConfig(good)
    }
  }
}

export function partitionKey(topic: string, partition: number): string {
  return key(topic, partition)
}

function key(topic: string, partition: number): string {
  // NUL cannot appear in a topic name, so the key is unambiguous.
  return `${topic}\u0000${partition}`
}

function topicIdOf(config: TopicConfigView | undefined, parts: Map<number, PartitionStateView>): string {
  if (config !== undefined && config.topicId !== '') return config.topicId
  return parts.values().next().value?.topicId ?? ''
}

function toPartitionState(p: wire.PartitionState__Output): PartitionStateView {
  return {
    topic: p.topic,
    partition: p.partition,
    leader: p.leader,
    leaderEpoch: p.leader_epoch,
    replicas: [...p.replicas],
    isr: [...p.isr],
    partitionEpoch: p.partition_epoch,
    topicId: p.topic_id,
  }
}

function toBrokerView(b: wire.BrokerInfo__Output): BrokerView {
  return {
    brokerId: b.broker_id,
    host: b.host,
    port: b.port,
    rack: b.rack,
    brokerEpoch: b.broker_epoch,
    adminPort: b.admin_port,
    kafkaHost: b.kafka_host,
    kafkaPort: b.kafka_port,
  }
}

function samePartitionState(a: PartitionStateView | undefined, b: PartitionStateView): boolean {
  return (
    a !== undefined &&
    a.leader === b.leader &&
    a.leaderEpoch === b.leaderEpoch &&
    a.partitionEpoch === b.partitionEpoch &&
    a.topicId === b.topicId &&
    sameList(a.replicas, b.replicas) &&
    sameList(a.isr, b.isr)
  )
}

function sameList(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i])
}
