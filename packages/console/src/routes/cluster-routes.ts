/**
 * GET /api/cluster: the overview. Leader and replica counts per broker and the under-replicated
 * (ISR smaller than the replica set) and offline (no leader) partition counts are computed here
 * from one describeTopics of every topic, internal ones included, since an operator's
 * "is my cluster healthy" covers __consumer_offsets too.
 */
import { ok, type Route } from '../http/route.js'

export interface BrokerView {
  readonly id: number
  readonly host: string
  readonly port: number
  readonly rack: string | null
  readonly leaders: number
  readonly replicas: number
}

export const clusterRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/cluster',
    mutates: false,
    handle: async ({ client }) => {
      const admin = client.admin()
      const [cluster, topics] = await Promise.all([
        admin.describeCluster(),
        admin.describeTopics(undefined, { includeInternal: true }),
      ])
      const leaders = new Map<number, number>()
      const replicas = new Map<number, number>()
      let partitions = 0
      let underReplicated = 0
      let offline = 0
      for (const t of topics) {
        for (const p of t.partitions) {
          partitions++
          if (p.leader < 0) offline++
          else leaders.set(p.leader, (leaders.get(p.leader) ?? 0) + 1)
          if (p.isr.length < p.replicas.length) underReplicated++
          for (const r of p.replicas) replicas.set(r, (replicas.get(r) ?? 0) + 1)
        }
      }
      const brokers: BrokerView[] = [...cluster.brokers]
        .sort((a, b) => a.brokerId - b.brokerId)
        .map((b) => ({
          id: b.brokerId,
          host: b.host,
          port: b.port,
          rack: b.rack === '' ? null : b.rack,
          leaders: leaders.get(b.brokerId) ?? 0,
          replicas: replicas.get(b.brokerId) ?? 0,
        }))
      return ok({
        clusterId: cluster.clusterId,
        controller: cluster.controllerId,
        brokers,
        topics: topics.length,
        partitions,
        underReplicatedPartitions: underReplicated,
        offlinePartitions: offline,
      })
    },
  },
]
