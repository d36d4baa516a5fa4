/**
 * The JSON shapes the console API answers (packages/console/src/routes/*), as the page reads
 * them. 64-bit offsets arrive as numbers while exact and as decimal strings beyond 2^53, hence
 * `Int64`. Fields of routes still being added are optional where an older server lacks them.
 */

export type Int64 = number | string

export interface Page<T> {
  readonly items: T[]
  readonly total: number
  readonly page: number
  readonly pageSize: number
}

export interface Session {
  readonly readOnly: boolean
  readonly tokenRequired: boolean
  readonly connect: boolean
  readonly version: string
}

export interface BrokerRow {
  readonly id: number
  /** null for a broker that is down (its address is known only while registered). */
  readonly host: string | null
  readonly port: number | null
  readonly rack: string | null
  readonly leaders: number
  readonly replicas: number
  readonly adminPort?: number | null
  readonly kafkaPort?: number | null
  readonly health?: 'up' | 'down'
  readonly controller?: boolean
  readonly outOfSyncReplicas?: number
}

export interface Cluster {
  readonly clusterId: string
  readonly controller: number
  readonly brokers: BrokerRow[]
  readonly topics: number
  readonly partitions: number
  readonly underReplicatedPartitions: number
  readonly offlinePartitions: number
}

export interface BrokerPartition {
  readonly topic: string
  readonly partition: number
  readonly role: 'leader' | 'follower'
  readonly inSync: boolean
}

export interface BrokerDetail extends BrokerRow {
  readonly partitions?: Page<BrokerPartition>
}

export interface ThroughputSample {
  readonly t: number
  readonly bytesIn: number
  readonly bytesOut: number
  readonly recordsIn: number
  readonly recordsOut: number
}

export interface Throughput {
  readonly intervalMs: number
  readonly samples: ThroughputSample[]
}

export interface TopicRow {
  readonly name: string
  readonly internal: boolean
  readonly partitions: number
  readonly replicationFactor: number
  readonly records: Int64
  readonly sizeBytes: number | null
  readonly underReplicatedPartitions: number
  readonly offlinePartitions: number
}

export interface PartitionDetail {
  readonly partition: number
  readonly leader: number | null
  readonly leaderEpoch: number
  readonly replicas: number[]
  readonly isr: number[]
  readonly logStart: Int64 | null
  readonly logEnd: Int64 | null
  readonly records: Int64 | null
  readonly sizeBytes: number | null
}

export interface TopicConfig {
  readonly name: string
  readonly value: string | null
  readonly source: string
}

export interface TopicDetail extends TopicRow {
  readonly topicId: string
  readonly partitionDetails: PartitionDetail[]
  readonly configs: TopicConfig[]
}

export type BytesView =
  | null
  | {
      readonly encoding: 'utf8'
      readonly text: string
      readonly json?: unknown
      readonly size: number
      readonly truncated: boolean
    }
  | { readonly encoding: 'hex'; readonly hex: string; readonly size: number; readonly truncated: boolean }

export interface Message {
  readonly partition: number
  readonly offset: Int64
  readonly timestamp: Int64
  readonly key: BytesView
  readonly value: BytesView
  readonly headers: ReadonlyArray<{ key: string; value: BytesView }>
}

export interface MessagePage {
  readonly topic: string
  readonly messages: Message[]
  readonly scanned: number
  readonly matched: number
  readonly of: Int64
  readonly complete: boolean
  readonly unavailablePartitions: number[]
  readonly cancelled: boolean
  readonly next: Record<string, Int64>
}

export interface Produced {
  readonly topic: string
  readonly partition: number
  readonly offset: Int64
  readonly timestamp: Int64
}

export interface GroupRow {
  readonly groupId: string
  readonly state: string
  readonly protocolType: string
  readonly members: number
  readonly topics: string[]
  readonly totalLag: Int64 | null
}

export interface PartitionLag {
  readonly topic: string
  readonly partition: number
  readonly committed: Int64 | null
  readonly logEnd: Int64 | null
  readonly lag: Int64 | null
  readonly memberId: string | null
}

export interface GroupMember {
  readonly memberId: string
  readonly groupInstanceId: string | null
  readonly clientId: string
  readonly clientHost: string
  readonly assignment: ReadonlyArray<{ topic: string; partition: number }>
}

export interface GroupDetail {
  readonly groupId: string
  readonly state: string
  readonly protocolType: string
  readonly protocol: string
  readonly generationId: number
  readonly leader: string | null
  readonly members: GroupMember[]
  readonly offsets: PartitionLag[]
  readonly totalLag: Int64 | null
}

export interface LagHistory {
  readonly samples: ReadonlyArray<{ t: number; totalLag: number }>
}

export interface ResetPlan {
  readonly group: string
  readonly executed: boolean
  readonly partitions: ReadonlyArray<{ topic: string; partition: number; current: Int64 | null; target: Int64 }>
}

/** Kafka Connect REST: GET /connectors?expand=status&expand=info, one entry per connector. */
export interface ConnectorStatus {
  readonly name: string
  readonly connector: { readonly state: string; readonly worker_id: string; readonly trace?: string }
  readonly tasks: ReadonlyArray<{ id: number; state: string; worker_id: string; trace?: string }>
  readonly type?: string
}

export interface ConnectorInfo {
  readonly name: string
  readonly config: Record<string, string>
  readonly tasks: ReadonlyArray<{ connector: string; task: number }>
  readonly type?: string
}

export type ConnectorsExpanded = Record<string, { status?: ConnectorStatus; info?: ConnectorInfo }>

export interface StreamsAppRow {
  readonly applicationId: string
  readonly state: string
  readonly instances: number
  readonly topics: string[]
  readonly totalLag: Int64 | null
}

export interface StreamsPartition {
  readonly topic: string
  readonly partition: number
  readonly committed: Int64 | null
  readonly logEnd: Int64 | null
  readonly lag: Int64 | null
}

export interface StreamsInstance {
  readonly instanceId: string | null
  readonly memberId: string
  readonly clientHost: string
  readonly endpoint: string | null
  readonly activeTasks: string[]
  readonly standbyTasks: string[]
}

export interface StreamsTask {
  readonly taskId: string
  readonly active: string | null
  readonly standbys: string[]
  readonly partitions: StreamsPartition[]
  readonly lag: Int64
}

export interface StreamsAppDetail {
  readonly applicationId: string
  readonly state: string
  readonly generationId: number
  readonly instances: StreamsInstance[]
  readonly tasks: StreamsTask[]
  readonly otherPartitions: StreamsPartition[]
  readonly totalLag: Int64
}
