/**
 * AdminImpl: unary calls to the metadata service (its endpoints come from the brokers' Metadata
 * answers), with the client's retry policy; per-item errors are gathered into one SluiceError
 * (see Admin in admin-types.ts).
 */
import type * as grpc from '@grpc/grpc-js'
import { SluiceError, type wire } from '@sluice/protocol'
import type { ConnectionPool } from '../network/connection-pool.js'
import type { MetadataCache } from '../network/metadata-cache.js'
import { callUnary } from '../network/unary.js'
import type { ResolvedConnectOptions } from '../options.js'
import { withRetry } from '../retry.js'
import type {
  Admin,
  ClusterDescription,
  ConfigAlteration,
  CreatedTopic,
  DeletedRecords,
  DeleteRecordsTarget,
  ElectLeadersResult,
  NewTopic,
  TopicDescription,
} from './admin-types.js'
import type { TopicPartition } from '../consumer/consumer-types.js'
import { deleteRecords } from './delete-records.js'
import { GroupAdmin } from './group-admin.js'
import type {
  GroupDescription,
  GroupListing,
  GroupOffset,
  ListedOffset,
  OffsetResetPlanItem,
  OffsetSpec,
  ResetSpec,
} from './group-admin-types.js'

interface ItemResult {
  name: string
  error_code: number
  error_message: string
}

/** Throws one SluiceError listing every failed item, if any failed. */
export function throwItemErrors(operation: string, results: ItemResult[]): void {
  const failed = results.filter((r) => r.error_code !== 0)
  if (failed.length === 0) return
  const errors = failed.map((r) => {
    const e = SluiceError.fromId(r.error_code, r.error_message, { topic: r.name })
    return { topic: r.name, code: e.code, message: e.message }
  })
  const first = errors[0]!
  throw new SluiceError(
    first.code,
    `${operation} failed for ${errors.length} of ${results.length} topic(s): ` +
      errors.map((e) => `${e.topic}: ${e.code} (${e.message})`).join('; '),
    { errors, succeeded: results.filter((r) => r.error_code === 0).map((r) => r.name) },
  )
}

const ROTATE_ON = new Set(['NETWORK_EXCEPTION', 'NOT_CONTROLLER', 'METADATA_UNAVAILABLE', 'REQUEST_TIMED_OUT'])

function assertNames(names: unknown, what: string): asserts names is string[] {
  if (!Array.isArray(names) || !names.every((n) => typeof n === 'string'))
    throw new TypeError(`${what} must be an array of topic names`)
}

export class AdminImpl implements Admin {
  private readonly groups: GroupAdmin

  constructor(
    private readonly cache: MetadataCache,
    private readonly pool: ConnectionPool,
    private readonly options: ResolvedConnectOptions,
  ) {
    this.groups = new GroupAdmin(cache, pool, options)
  }

  async createTopics(
    topics: NewTopic[],
    options: { validateOnly?: boolean; timeoutMs?: number } = {},
  ): Promise<CreatedTopic[]> {
    if (!Array.isArray(topics)) throw new TypeError('createTopics() needs an array of { name, ... }')
    const req: wire.CreateTopicsRequest = {
      validate_only: options.validateOnly ?? false,
      timeout_ms: options.timeoutMs ?? this.options.requestTimeoutMs,
      topics: topics.map((t) => {
        if (t === null || typeof t !== 'object' || typeof t.name !== 'string')
          throw new TypeError('every new topic needs a name')
        return {
          name: t.name,
          num_partitions: t.numPartitions ?? -1,
          replication_factor: t.replicationFactor ?? -1,
          assignments: t.assignments ?? [],
          configs: t.configs ?? {},
        }
      }),
    }
    const res = await this.call<wire.CreateTopicsResponse__Output>('createTopics', (c, o, cb) =>
      c.CreateTopics(req, o, cb),
    )
    throwItemErrors('createTopics', res.topics)
    return res.topics.map((t) => ({
      name: t.name,
      topicId: t.topic_id,
      numPartitions: t.num_partitions,
      replicationFactor: t.replication_factor,
    }))
  }

  async listTopics(options: { includeInternal?: boolean } = {}): Promise<string[]> {
    const req: wire.DescribeTopicsRequest = { names: [], include_internal: options.includeInternal ?? false }
    const res = await this.call<wire.DescribeTopicsResponse__Output>('listTopics', (c, o, cb) =>
      c.DescribeTopics(req, o, cb),
    )
    return res.topics
      .filter((t) => t.error_code === 0 && (options.includeInternal === true || !t.is_internal))
      .map((t) => t.name)
      .sort()
  }

  async describeTopics(names?: string[], options: { includeInternal?: boolean } = {}): Promise<TopicDescription[]> {
    if (names !== undefined) assertNames(names, 'describeTopics names')
    const req: wire.DescribeTopicsRequest = { names: names ?? [], include_internal: options.includeInternal ?? false }
    const res = await this.call<wire.DescribeTopicsResponse__Output>('describeTopics', (c, o, cb) =>
      c.DescribeTopics(req, o, cb),
    )
    throwItemErrors('describeTopics', res.topics)
    return res.topics.map((t) => ({
      name: t.name,
      topicId: t.topic_id,
      isInternal: t.is_internal,
      partitions: t.partitions
        .map((p) => ({
          partition: p.partition,
          leader: p.leader,
          leaderEpoch: p.leader_epoch,
          replicas: p.replicas,
          isr: p.isr,
        }))
        .sort((a, b) => a.partition - b.partition),
      configs: t.configs.map((c) => ({ name: c.name, value: c.value, source: c.source })),
    }))
  }

  async deleteTopics(names: string[], options: { timeoutMs?: number } = {}): Promise<void> {
    assertNames(names, 'deleteTopics names')
    const req: wire.DeleteTopicsRequest = { names, timeout_ms: options.timeoutMs ?? this.options.requestTimeoutMs }
    const res = await this.call<wire.DeleteTopicsResponse__Output>('deleteTopics', (c, o, cb) =>
      c.DeleteTopics(req, o, cb),
    )
    throwItemErrors('deleteTopics', res.topics)
  }

  async createPartitions(
    topics: Array<{ name: string; count: number; assignments?: Array<{ partition: number; replicas: number[] }> }>,
    options: { validateOnly?: boolean; timeoutMs?: number } = {},
  ): Promise<void> {
    if (!Array.isArray(topics)) throw new TypeError('createPartitions() needs an array of { name, count }')
    const req: wire.CreatePartitionsRequest = {
      validate_only: options.validateOnly ?? false,
      timeout_ms: options.timeoutMs ?? this.options.requestTimeoutMs,
      topics: topics.map((t) => ({ name: t.name, count: t.count, assignments: t.assignments ?? [] })),
    }
    const res = await this.call<wire.CreatePartitionsResponse__Output>('createPartitions', (c, o, cb) =>
      c.CreatePartitions(req, o, cb),
    )
    throwItemErrors('createPartitions', res.topics)
  }

  async describeCluster(): Promise<ClusterDescription> {
    const res = await this.call<wire.DescribeClusterResponse__Output>('describeCluster', (c, o, cb) =>
      c.DescribeCluster({}, o, cb),
    )
    return {
      clusterId: res.cluster_id,
      controllerId: res.controller_id,
      brokers: res.brokers
        .map((b) => ({
          brokerId: b.broker_id,
          host: b.host,
          port: b.port,
          rack: b.rack,
          adminPort: b.admin_port,
          kafkaHost: b.kafka_host,
          kafkaPort: b.kafka_port,
        }))
        .sort((a, b) => a.brokerId - b.brokerId),
      metadataEndpoints: res.metadata_endpoints,
    }
  }

  async alterConfigs(resources: ConfigAlteration[], options: { validateOnly?: boolean } = {}): Promise<void> {
    if (!Array.isArray(resources)) throw new TypeError('alterConfigs() needs an array of { topic, configs }')
    const req: wire.AlterConfigsRequest = {
      validate_only: options.validateOnly ?? false,
      resources: resources.map((r) => ({
        topic: r.topic,
        configs: Object.entries(r.configs).map(([name, value]) =>
          value === null ? { name, value: '', op: 'delete' } : { name, value, op: 'set' },
        ),
      })),
    }
    const res = await this.call<wire.AlterConfigsResponse__Output>('alterConfigs', (c, o, cb) =>
      c.AlterConfigs(req, o, cb),
    )
    throwItemErrors('alterConfigs', res.resources)
  }

  async electLeaders(
    options: { type?: 'preferred' | 'unclean'; partitions?: TopicPartition[] } = {},
  ): Promise<ElectLeadersResult[]> {
    const byTopic = new Map<string, number[]>()
    for (const tp of options.partitions ?? []) byTopic.set(tp.topic, [...(byTopic.get(tp.topic) ?? []), tp.partition])
    const req: wire.ElectLeadersRequest = {
      election_type: options.type === 'unclean' ? 1 : 0,
      partitions: [...byTopic].map(([topic, partitions]) => ({ topic, partitions })),
    }
    const res = await this.call<wire.ElectLeadersResponse__Output>('electLeaders', (c, o, cb) =>
      c.ElectLeaders(req, o, cb),
    )
    return res.results.map((r) => ({
      topic: r.topic,
      partition: r.partition,
      leader: r.leader,
      ...(r.error_code !== 0
        ? { error: SluiceError.fromId(r.error_code, r.error_message, { topic: r.topic, partition: r.partition }) }
        : {}),
    }))
  }

  async deleteRecords(targets: DeleteRecordsTarget[], options: { timeoutMs?: number } = {}): Promise<DeletedRecords[]> {
    return await deleteRecords(
      this.cache,
      this.pool,
      this.options,
      targets,
      options.timeoutMs ?? this.options.requestTimeoutMs,
    )
  }

  // Consumer groups: see group-admin.ts.
  async listGroups(options?: { states?: string[] }): Promise<GroupListing[]> {
    return await this.groups.listGroups(options)
  }
  async describeGroups(groupIds: string[]): Promise<GroupDescription[]> {
    return await this.groups.describeGroups(groupIds)
  }
  async deleteGroups(groupIds: string[]): Promise<void> {
    await this.groups.deleteGroups(groupIds)
  }
  async fetchOffsets(groupId: string, topics?: string[]): Promise<GroupOffset[]> {
    return await this.groups.fetchOffsets(groupId, topics)
  }
  async listOffsets(items: Array<{ topic: string; partition?: number }>, spec: OffsetSpec): Promise<ListedOffset[]> {
    return await this.groups.listOffsets(items, spec)
  }

  async resetOffsets(
    groupId: string,
    request: { topic: string; partitions?: number[]; to: ResetSpec; dryRun?: boolean },
  ): Promise<OffsetResetPlanItem[]> {
    return await this.groups.resetOffsets(groupId, request)
  }

  /** One unary metadata-service call with retries; rotates instances on transport failures. */
  private async call<Res>(
    operation: string,
    invoke: (
      client: wire.MetadataClient,
      options: grpc.CallOptions,
      cb: grpc.requestCallback<Res>,
    ) => grpc.ClientUnaryCall,
  ): Promise<Res> {
    return await withRetry(
      async () =>
        await this.cache.onMetadataService(ROTATE_ON, async (endpoint) => {
          const client = this.pool.metadataClient(endpoint)
          return await callUnary<Res>((o, cb) => invoke(client, o, cb), this.options.requestTimeoutMs)
        }),
      {
        retry: this.options.retry,
        operation,
        onRetry: async (err) => {
          if (err.staleMetadata) await this.cache.refresh().catch(() => {})
        },
      },
    )
  }
}
