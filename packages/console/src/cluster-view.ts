/**
 * The cluster as the overview and the brokers pages show it, from one describeCluster and one
 * describeTopics of every topic (internal ones included: "is my cluster healthy" covers
 * __consumer_offsets too). A broker is "up" when it is registered (it holds a live metadata
 * session); a broker id that some partition lists as a replica but that is not registered is
 * "down" and still listed, since that is exactly the broker an operator is looking for.
 */
import type { SluiceClient, TopicDescription } from '@sluice/client'

export interface BrokerView {
  readonly id: number
  /** null for a down broker (its address is known only while it is registered). */
  readonly host: string | null
  readonly port: number | null
  readonly rack: string | null
  /** The admin HTTP port (/metrics, /healthz); null when it serves none or is down. */
  readonly adminPort: number | null
  readonly kafkaPort: number | null
  readonly health: 'up' | 'down'
  readonly controller: boolean
  readonly leaders: number
  readonly replicas: number
  /** Replicas on this broker that are out of their partition's ISR. */
  readonly outOfSyncReplicas: number
}

export interface ClusterView {
  readonly clusterId: string
  readonly controller: number
  readonly brokers: BrokerView[]
  readonly topics: number
  readonly partitions: number
  readonly underReplicatedPartitions: number
  readonly offlinePartitions: number
  /** Kept for the broker detail page, which lists a broker's partitions. */
  readonly described: TopicDescription[]
}

export async function loadClusterView(client: SluiceClient): Promise<ClusterView> {
  const admin = client.admin()
  const [cluster, topics] = await Promise.all([
    admin.describeCluster(),
    admin.describeTopics(undefined, { includeInternal: true }),
  ])
  const leaders = new Map<number, number>()
  const replicas = new Map<number, number>()
  const outOfSync = new Map<number, number>()
  const bump = (m: Map<number, number>, id: number): void => {
    m.set(id, (m.get(id) ?? 0) + 1)
  }
  let partitions = 0
  let underReplicated = 0
  let offline = 0
  for (const t of topics) {
    for (const p of t.partitions) {
      partitions++
      if (p.leader < 0) offline++
      else bump(leaders, p.leader)
      if (p.isr.length < p.replicas.length) underReplicated++
      for (const r of p.replicas) {
        bump(replicas, r)
        if (!p.isr.includes(r)) bump(outOfSync, r)
      }
    }
  }
  const counts = (id: number) => ({
    controller: id === cluster.controllerId,
    leaders: leaders.get(id) ?? 0,
    replicas: replicas.get(id) ?? 0,
    outOfSyncReplicas: outOfSync.get(id) ?? 0,
  })
  const registered = new Set(cluster.brokers.map((b) => b.brokerId))
  const up: BrokerView[] = cluster.brokers.map((b) => ({
    id: b.brokerId,
    host: b.host,
    port: b.port,
    rack: b.rack === '' ? null : b.rack,
    adminPort: b.adminPort > 0 ? b.adminPort : null,
    kafkaPort: b.kafkaPort > 0 ? b.kafkaPort : null,
    health: 'up',
    ...counts(b.brokerId),
  }))
  const down: BrokerView[] = [...replicas.keys()]
    .filter((id) => !registered.has(id))
    .map((id) => ({
      id,
      host: null,
      port: null,
      rack: null,
      adminPort: null,
      kafkaPort: null,
      health: 'down',
      ...counts(id),
    }))
  return {
    clusterId: cluster.clusterId,
    controller: cluster.controllerId,
    brokers: [...up, ...down].sort((a, b) => a.id - b.id),
    topics: topics.length,
    partitions,
    underReplicatedPartitions: underReplicated,
    offlinePartitions: offline,
    described: topics,
  }
}

export interface BrokerPartitionView {
  readonly topic: string
  readonly partition: number
  readonly role: 'leader' | 'follower'
  readonly inSync: boolean
}

/** Every partition with a replica on `brokerId`, by topic then partition. */
export function brokerPartitions(topics: readonly TopicDescription[], brokerId: number): BrokerPartitionView[] {
  const out: BrokerPartitionView[] = []
  for (const t of topics)
    for (const p of t.partitions)
      if (p.replicas.includes(brokerId))
        out.push({
          topic: t.name,
          partition: p.partition,
          role: p.leader === brokerId ? 'leader' : 'follower',
          inSync: p.isr.includes(brokerId),
        })
  return out.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition))
}
