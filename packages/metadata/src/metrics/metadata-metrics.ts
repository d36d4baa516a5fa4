/**
 * The metadata service's Prometheus metrics (docs/metrics.md lists every series): RPCs, the
 * controller (active status, epoch, leader elections, offline and under-replicated partitions
 * of the whole cluster), and the group coordinator (rebalances, members, committed offsets and
 * consumer lag).
 *
 * Cluster-wide gauges are computed on scrape from the active controller's in-memory view (no
 * timer, no per-partition bookkeeping) and are reported only while this instance is the active
 * controller, so that summing over metadata instances never double-counts: a standby reports
 * sluice_controller_active 0 and 0 for every cluster gauge.
 */
import { Counter, Gauge, type Registry } from 'prom-client'
import { RpcMetrics, childCache, createMetricsRegistry } from '@sluice/server-kit'
import type { ConsumerLagReader } from './consumer-lag.js'

/** What the scrape-time gauges read; every getter may return undefined (not started, standby, stopped). */
export interface MetadataMetricsSources {
  readonly controller: () => ControllerView | undefined
  readonly groups: () => GroupsView | undefined
  readonly lag: () => ConsumerLagReader | undefined
}

/** The parts of the Controller (controller/controller.ts) the gauges read. */
export interface ControllerView {
  readonly controllerEpoch: number
  /** Whether this instance is the active controller now. */
  readonly active: boolean
  readonly liveBrokers: number
  readonly topics: Iterable<{
    readonly states: ReadonlyArray<{ readonly leader: number; readonly isr: readonly number[] }>
    readonly assignment: ReadonlyArray<readonly number[]>
  }>
}

/** The parts of the GroupCoordinator (group/coordinator.ts) the gauges read. */
export interface GroupsView {
  readonly groups: Iterable<{
    readonly groupId: string
    readonly state: string
    readonly members: number
    readonly generationId: number
  }>
  readonly committed: () => Iterable<{
    readonly groupId: string
    readonly topic: string
    readonly partition: number
    readonly offset: bigint
  }>
}

/** The group-core.ts event that starts a rebalance. */
export const REBALANCE_EVENT = 'preparing rebalance'

export class MetadataMetrics {
  readonly registry: Registry
  readonly rpc: RpcMetrics
  private readonly elections: Counter
  private readonly offline: Counter
  private readonly rebalances

  constructor(sources: MetadataMetricsSources, registry: Registry = createMetricsRegistry()) {
    this.registry = registry
    this.rpc = new RpcMetrics(registry)
    const registers = [registry]
    this.elections = new Counter({
      name: 'sluice_leader_elections_total',
      help: 'Partition leader changes to a live broker decided by this controller (failover, preferred-leader and admin elections).',
      registers,
    })
    this.offline = new Counter({
      name: 'sluice_partitions_gone_offline_total',
      help: 'Times this controller left a partition without a leader (no live in-sync replica).',
      registers,
    })
    const rebalances = new Counter({
      name: 'sluice_group_rebalances_total',
      help: 'Rebalances started, per consumer group.',
      labelNames: ['group'],
      registers,
    })
    this.rebalances = childCache((group) => rebalances.labels(group))
    registerControllerGauges(registry, sources)
    registerGroupGauges(registry, sources)
  }

  /** A partition state change committed by the controller (controller.ts `onLeaderChange`). */
  leaderChanged(from: number, to: number): void {
    if (from === to) return
    if (to >= 0) this.elections.inc()
    else this.offline.inc()
  }

  /** Group lifecycle events (group-manager.ts `onGroupEvent`). */
  groupEvent(groupId: string, event: string): void {
    if (event === REBALANCE_EVENT) this.rebalances.get(groupId).inc()
  }
}

function registerControllerGauges(registry: Registry, sources: MetadataMetricsSources): void {
  const registers = [registry]
  const active = (): ControllerView | undefined => {
    const c = sources.controller()
    return c?.active === true ? c : undefined
  }
  new Gauge({
    name: 'sluice_controller_active',
    help: '1 while this metadata-service instance is the active controller, 0 on a standby.',
    registers,
    collect() {
      this.set(active() !== undefined ? 1 : 0)
    },
  })
  new Gauge({
    name: 'sluice_controller_epoch',
    help: 'The controller epoch this instance last held or saw (0 before the first election).',
    registers,
    collect() {
      this.set(sources.controller()?.controllerEpoch ?? 0)
    },
  })
  const clusterGauge = (name: string, help: string, value: (c: ControllerView) => number): void => {
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.reset()
        const c = active()
        if (c !== undefined) this.set(value(c))
      },
    })
  }
  clusterGauge(
    'sluice_live_brokers',
    'Brokers with a live session (active controller; 0 on a standby).',
    (c) => c.liveBrokers,
  )
  clusterGauge(
    'sluice_offline_partitions',
    'Partitions of the cluster without a leader (active controller; 0 on a standby).',
    (c) => countPartitions(c, (s) => s.leader < 0),
  )
  clusterGauge(
    'sluice_cluster_under_replicated_partitions',
    'Partitions of the cluster whose ISR is smaller than their replica list (active controller; 0 on a standby).',
    (c) => countPartitions(c, (s, replicas) => s.isr.length < replicas.length),
  )
  clusterGauge('sluice_cluster_partitions', 'Partitions in the cluster (active controller; 0 on a standby).', (c) =>
    countPartitions(c, () => true),
  )
}

function countPartitions(
  c: ControllerView,
  match: (s: { leader: number; isr: readonly number[] }, replicas: readonly number[]) => boolean,
): number {
  let n = 0
  for (const t of c.topics) {
    for (let p = 0; p < t.states.length; p++) if (match(t.states[p]!, t.assignment[p] ?? [])) n++
  }
  return n
}

function registerGroupGauges(registry: Registry, sources: MetadataMetricsSources): void {
  const registers = [registry]
  new Gauge({
    name: 'sluice_groups',
    help: 'Consumer groups with membership state in this coordinator, per state.',
    labelNames: ['state'],
    registers,
    collect() {
      this.reset()
      const counts = new Map<string, number>()
      for (const g of sources.groups()?.groups ?? []) counts.set(g.state, (counts.get(g.state) ?? 0) + 1)
      for (const [state, n] of counts) this.set({ state }, n)
    },
  })
  new Gauge({
    name: 'sluice_group_members',
    help: 'Members of each consumer group.',
    labelNames: ['group'],
    registers,
    collect() {
      this.reset()
      for (const g of sources.groups()?.groups ?? []) this.set({ group: g.groupId }, g.members)
    },
  })
  new Gauge({
    name: 'sluice_group_committed_offset',
    help: 'The committed offset of each consumer group and partition.',
    labelNames: ['group', 'topic', 'partition'],
    registers,
    collect() {
      this.reset()
      for (const o of sources.groups()?.committed() ?? []) {
        this.set({ group: o.groupId, topic: o.topic, partition: String(o.partition) }, Number(o.offset))
      }
    },
  })
  new Gauge({
    name: 'sluice_consumer_group_lag',
    help: 'Records between the high watermark and the committed offset, per consumer group and partition (consumer-lag.ts).',
    labelNames: ['group', 'topic', 'partition'],
    registers,
    async collect() {
      this.reset()
      const groups = sources.groups()
      const lag = sources.lag()
      if (groups === undefined || lag === undefined) return
      const committed = [...groups.committed()]
      if (committed.length === 0) return
      const ends = await lag.endOffsets(committed)
      for (const o of committed) {
        const end = ends.get(o.topic)?.get(o.partition)
        if (end === undefined) continue
        this.set(
          { group: o.groupId, topic: o.topic, partition: String(o.partition) },
          Math.max(0, Number(end - o.offset)),
        )
      }
    },
  })
}
