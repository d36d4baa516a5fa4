/**
 * The shapes the CLI prints, independent of the SDK's own types (client.ts maps them), and
 * their human renderings. `--json` prints these same objects, bigints as strings.
 */
import { renderTable } from '../table.js'

export interface PartitionView {
  readonly topic: string
  readonly partition: number
  /** -1 when offline. */
  readonly leader: number
  readonly leaderEpoch: number
  readonly replicas: readonly number[]
  readonly isr: readonly number[]
}

export interface TopicView {
  readonly name: string
  readonly internal: boolean
  readonly partitions: readonly PartitionView[]
  /** Only overrides, or every effective value, depending on what the cluster reports. */
  readonly configs: Readonly<Record<string, string>>
}

export interface BrokerView {
  readonly brokerId: number
  readonly host: string
  readonly port: number
  readonly rack: string
}

export interface ClusterView {
  readonly clusterId: string
  readonly controllerId: number
  readonly brokers: readonly BrokerView[]
}

export function renderPartitions(topics: readonly TopicView[]): string {
  const rows = topics.flatMap((t) => [...t.partitions].sort((a, b) => a.partition - b.partition))
  return renderTable<PartitionView>(
    [
      { header: 'TOPIC', value: (r) => r.topic },
      { header: 'PARTITION', value: (r) => r.partition },
      { header: 'LEADER', value: (r) => (r.leader < 0 ? 'none' : r.leader), align: 'right' },
      { header: 'LEADER EPOCH', value: (r) => r.leaderEpoch },
      { header: 'REPLICAS', value: (r) => r.replicas.join(',') },
      { header: 'ISR', value: (r) => r.isr.join(',') },
    ],
    rows,
  )
}

/**
 * Partitions whose ISR is smaller than their replica set (Kafka's under-replicated partitions),
 * including offline ones (no leader). Topics with none are left out.
 */
export function underReplicated(topics: readonly TopicView[]): TopicView[] {
  return topics
    .map((t) => ({ ...t, partitions: t.partitions.filter((p) => p.leader < 0 || p.isr.length < p.replicas.length) }))
    .filter((t) => t.partitions.length > 0)
}

export function renderTopicList(topics: readonly TopicView[]): string {
  return renderTable<TopicView>(
    [
      { header: 'TOPIC', value: (t) => t.name },
      { header: 'PARTITIONS', value: (t) => t.partitions.length },
      { header: 'REPLICATION', value: (t) => t.partitions[0]?.replicas.length ?? 0 },
      { header: 'INTERNAL', value: (t) => (t.internal ? 'yes' : '') },
    ],
    [...topics].sort((a, b) => a.name.localeCompare(b.name)),
  )
}

export function renderCluster(c: ClusterView): string {
  const head = `cluster id  ${c.clusterId}\ncontroller  ${c.controllerId < 0 ? 'none' : c.controllerId}\n\n`
  return (
    head +
    renderTable<BrokerView>(
      [
        { header: 'BROKER', value: (b) => b.brokerId },
        { header: 'HOST', value: (b) => b.host },
        { header: 'PORT', value: (b) => b.port },
        { header: 'RACK', value: (b) => (b.rack === '' ? undefined : b.rack) },
      ],
      [...c.brokers].sort((a, b) => a.brokerId - b.brokerId),
    )
  )
}
