/** Public types of the admin client (the management plane, served by the metadata service). */
import type { TopicPartition } from '../consumer/consumer-types.js'
import type {
  GroupDescription,
  GroupListing,
  GroupOffset,
  ListedOffset,
  OffsetResetPlanItem,
  OffsetSpec,
  ResetSpec,
} from './group-admin-types.js'

export interface NewTopic {
  name: string
  /** Default: the cluster default. */
  numPartitions?: number
  /** Default: the cluster default. */
  replicationFactor?: number
  /** Topic-level config overrides, e.g. { 'cleanup.policy': 'compact' }. */
  configs?: Record<string, string>
  /** Explicit replica placement (then numPartitions/replicationFactor must be omitted). */
  assignments?: Array<{ partition: number; replicas: number[] }>
}

export interface CreatedTopic {
  name: string
  topicId: string
  numPartitions: number
  replicationFactor: number
}

export interface PartitionDescription {
  partition: number
  /** -1 while offline. */
  leader: number
  leaderEpoch: number
  replicas: number[]
  isr: number[]
}

export interface ConfigEntry {
  name: string
  value: string
  /** 'default' or 'topic' (a per-topic override). */
  source: string
}

export interface TopicDescription {
  name: string
  topicId: string
  isInternal: boolean
  partitions: PartitionDescription[]
  configs: ConfigEntry[]
}

export interface BrokerDescription {
  brokerId: number
  host: string
  port: number
  rack: string
  /** The broker's admin HTTP port (/metrics, /healthz); 0 when it serves none. */
  adminPort: number
  /** Its Kafka listener; '' and 0 when it has none. */
  kafkaHost: string
  kafkaPort: number
}

export interface ClusterDescription {
  clusterId: string
  controllerId: number
  brokers: BrokerDescription[]
  metadataEndpoints: string[]
}

export interface ConfigAlteration {
  topic: string
  /** A string sets the override, null deletes it (back to the default). */
  configs: Record<string, string | null>
}

export interface DeleteRecordsTarget extends TopicPartition {
  /** Records below this offset become unreadable; 'high-watermark' (or -1) = every readable record. */
  beforeOffset: bigint | number | 'high-watermark'
}

export interface DeletedRecords extends TopicPartition {
  /** The partition's new log start offset. */
  lowWatermark: bigint
}

export interface ElectLeadersResult extends TopicPartition {
  leader: number
  /** Set when this partition's election failed (ELECTION_NOT_NEEDED included). */
  error?: import('@sluice/protocol').SluiceError
}

/**
 * The admin client. Batch calls (createTopics, deleteTopics, createPartitions, alterConfigs,
 * describeTopics) are all-or-error: they resolve when every item succeeded, and otherwise reject
 * with ONE SluiceError whose code is the first failed item's code and whose
 * `details.errors` lists every failed item as { topic, code, message } (`details.succeeded`
 * names the items that did succeed). Transport failures and NOT_CONTROLLER are retried on the
 * next metadata-service instance per the client's retry policy.
 */
export interface Admin {
  createTopics(topics: NewTopic[], options?: { validateOnly?: boolean; timeoutMs?: number }): Promise<CreatedTopic[]>
  /** Topic names, sorted; internal topics only with includeInternal. */
  listTopics(options?: { includeInternal?: boolean }): Promise<string[]>
  /** Every (non-internal) topic when names is omitted. */
  describeTopics(names?: string[], options?: { includeInternal?: boolean }): Promise<TopicDescription[]>
  deleteTopics(names: string[], options?: { timeoutMs?: number }): Promise<void>
  /** `count` is the new total number of partitions. */
  createPartitions(
    topics: Array<{ name: string; count: number; assignments?: Array<{ partition: number; replicas: number[] }> }>,
    options?: { validateOnly?: boolean; timeoutMs?: number },
  ): Promise<void>
  describeCluster(): Promise<ClusterDescription>
  alterConfigs(resources: ConfigAlteration[], options?: { validateOnly?: boolean }): Promise<void>
  /** Per-partition results (not all-or-error: ELECTION_NOT_NEEDED is a normal outcome). */
  electLeaders(options?: {
    type?: 'preferred' | 'unclean'
    partitions?: TopicPartition[]
  }): Promise<ElectLeadersResult[]>
  /**
   * Moves partitions' log start offsets forward on their leaders (Kafka DeleteRecords); resolves
   * with the new start offsets. All-or-error (OFFSET_OUT_OF_RANGE past the high watermark).
   */
  deleteRecords(targets: DeleteRecordsTarget[], options?: { timeoutMs?: number }): Promise<DeletedRecords[]>
  /** Consumer groups known to the coordinator, sorted by id (optionally only in these states). */
  listGroups(options?: { states?: string[] }): Promise<GroupListing[]>
  /** All-or-error, like the topic calls (e.g. GROUP_ID_NOT_FOUND for an unknown group, if the coordinator reports it). */
  describeGroups(groupIds: string[]): Promise<GroupDescription[]>
  /** Deletes groups without members and their committed offsets; all-or-error (NON_EMPTY_GROUP for an active one). */
  deleteGroups(groupIds: string[]): Promise<void>
  /** The group's committed offsets (partitions without one are left out), sorted. */
  fetchOffsets(groupId: string, topics?: string[]): Promise<GroupOffset[]>
  /** Log start / high watermark / timestamp lookups; an item without partition means every partition. */
  listOffsets(items: Array<{ topic: string; partition?: number }>, spec: OffsetSpec): Promise<ListedOffset[]>
  /**
   * Moves an empty group's committed offsets for a topic (or some of its partitions). Returns
   * the plan; commits it unless dryRun. NON_EMPTY_GROUP (nothing changed) while the group has members.
   */
  resetOffsets(
    groupId: string,
    request: { topic: string; partitions?: number[]; to: ResetSpec; dryRun?: boolean },
  ): Promise<OffsetResetPlanItem[]>
}
