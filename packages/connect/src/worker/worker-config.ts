/**
 * A worker's own settings (`sluice connect` flags or a standalone properties file), with Kafka
 * Connect's names where Kafka has one, and the checks that refuse a bad one by field name.
 */
import type { Logger, SluiceClient } from '@sluice/client'
import { configError } from '../errors.js'
import type { ConnectorPlugin } from '../plugins.js'

export interface WorkerConfig {
  /** `bootstrap.servers`: Sluice endpoints (the SDK's bootstrap). Or `client`. */
  readonly bootstrap?: readonly string[]
  readonly client?: SluiceClient
  /** `group.id`: the Connect cluster; workers with the same id share the work. */
  readonly groupId: string
  /** The URL other workers and clients reach this worker's REST API at (`rest.advertised.*`). */
  readonly advertisedUrl?: string
  readonly configStorageTopic?: string
  readonly offsetStorageTopic?: string
  readonly statusStorageTopic?: string
  readonly offsetStoragePartitions?: number
  readonly statusStoragePartitions?: number
  /** Undefined: the cluster's default replication factor. */
  readonly storageReplicationFactor?: number
  /** Worker defaults, overridable per connector (`key.converter`, `value.converter` and their `.` settings). */
  readonly converterConfig?: Readonly<Record<string, string>>
  readonly sessionTimeoutMs?: number
  readonly heartbeatIntervalMs?: number
  /** `offset.flush.interval.ms` for sink commits. Default 10000 (Kafka's is 60000; see docs/connect.md). */
  readonly offsetFlushIntervalMs?: number
  readonly plugins?: readonly ConnectorPlugin[]
  readonly logger: Logger
}

export interface ResolvedWorkerConfig extends WorkerConfig {
  readonly configStorageTopic: string
  readonly offsetStorageTopic: string
  readonly statusStorageTopic: string
  readonly offsetStoragePartitions: number
  readonly statusStoragePartitions: number
  readonly converterConfig: Readonly<Record<string, string>>
  readonly sessionTimeoutMs: number
  readonly heartbeatIntervalMs: number
  readonly offsetFlushIntervalMs: number
  readonly advertisedUrl: string
}

const TOPIC = /^[A-Za-z0-9._-]{1,249}$/

export function resolveWorkerConfig(c: WorkerConfig): ResolvedWorkerConfig {
  if (c.client === undefined && (c.bootstrap === undefined || c.bootstrap.length === 0))
    throw configError('bootstrap.servers', 'name at least one broker endpoint')
  if (typeof c.groupId !== 'string' || !TOPIC.test(c.groupId))
    throw configError('group.id', `not a usable group id: "${String(c.groupId)}"`)
  const r: ResolvedWorkerConfig = {
    ...c,
    configStorageTopic: c.configStorageTopic ?? 'connect-configs',
    offsetStorageTopic: c.offsetStorageTopic ?? 'connect-offsets',
    statusStorageTopic: c.statusStorageTopic ?? 'connect-status',
    offsetStoragePartitions: c.offsetStoragePartitions ?? 25,
    statusStoragePartitions: c.statusStoragePartitions ?? 5,
    converterConfig: {
      'key.converter': 'org.apache.kafka.connect.json.JsonConverter',
      'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
      ...c.converterConfig,
    },
    sessionTimeoutMs: c.sessionTimeoutMs ?? 10_000,
    heartbeatIntervalMs: c.heartbeatIntervalMs ?? 3_000,
    offsetFlushIntervalMs: c.offsetFlushIntervalMs ?? 10_000,
    advertisedUrl: c.advertisedUrl ?? '',
  }
  for (const [field, v] of [
    ['config.storage.topic', r.configStorageTopic],
    ['offset.storage.topic', r.offsetStorageTopic],
    ['status.storage.topic', r.statusStorageTopic],
  ] as const)
    if (!TOPIC.test(v)) throw configError(field, `not a valid topic name: "${v}"`)
  for (const [field, v, min] of [
    ['offset.storage.partitions', r.offsetStoragePartitions, 1],
    ['status.storage.partitions', r.statusStoragePartitions, 1],
    ['session.timeout.ms', r.sessionTimeoutMs, 1000],
    ['heartbeat.interval.ms', r.heartbeatIntervalMs, 100],
    ['offset.flush.interval.ms', r.offsetFlushIntervalMs, 0],
  ] as const)
    if (!Number.isSafeInteger(v) || v < min) throw configError(field, `must be an integer >= ${min}, got ${v}`)
  return r
}
