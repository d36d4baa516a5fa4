/**
 * The metadata service's admin HTTP server (`--admin-port`, @sluice/server-kit): /metrics
 * from MetadataMetrics, /healthz, and /readyz. It starts before the store opens, so a liveness
 * probe answers while ZooKeeper is still being reached; the service's parts are bound once they
 * exist, through getters, because the controller of an instance comes and goes with elections.
 *
 * Ready means able to serve: the store is usable (embedded: open; ZooKeeper: the session is
 * connected and has not expired) and this instance knows who the active controller is: itself,
 * or (once controller election is wired in) another instance it can forward or redirect to.
 */
import type { Logger } from 'pino'
import { startProcessAdmin, type AdminServer, type ProcessAdminOptions, type Readiness } from '@sluice/server-kit'
import type { Controller } from '../controller/controller.js'
import type { GroupCoordinator } from '../group/coordinator.js'
import type { MetadataStore } from '../store/metadata-store.js'
import { ZooKeeperStore } from '../store/zookeeper-store.js'
import { ConsumerLagReader } from './consumer-lag.js'
import { MetadataMetrics, type ControllerView, type GroupsView } from './metadata-metrics.js'

/** What controller election (controller/controller-election.ts) tells; absent = this instance is the only controller. */
export interface ElectionView {
  isActive(): boolean
  activeController(): { id: number; endpoint: string; epoch?: number } | undefined
}

export interface MetadataAdminState {
  readonly store: MetadataStore
  /** This instance's controller while it has one (undefined on a standby or after stopping). */
  readonly controller: () => Controller | undefined
  /** Controller election, once wired in; undefined means the controller above is always active. */
  readonly election?: () => ElectionView | undefined
  readonly groups: () => GroupCoordinator | undefined
  /** The instance is fenced (store session expired, or deposed): it no longer serves. */
  readonly isLost: () => boolean
  /** host:port of live brokers, for the end offsets of the consumer-lag gauge. */
  readonly liveBrokerEndpoints: () => string[]
}

/** The consumer-lag reader logs through a child of the admin logger, so it must be a pino Logger. */
export interface MetadataAdminOptions extends ProcessAdminOptions {
  readonly logger: Logger
}

export class MetadataAdmin {
  readonly metrics: MetadataMetrics
  private state: MetadataAdminState | undefined
  private lag: ConsumerLagReader | undefined
  private stopping = false
  private server: AdminServer | undefined

  private constructor(private readonly logger: Logger) {
    this.metrics = new MetadataMetrics({
      controller: () => this.controllerView(),
      groups: () => this.groupsView(),
      lag: () => this.lag,
    })
  }

  static async start(options: MetadataAdminOptions): Promise<MetadataAdmin> {
    const admin = new MetadataAdmin(options.logger)
    admin.server = await startProcessAdmin(options, admin.metrics.registry, () => admin.readiness())
    return admin
  }

  get port(): number {
    return this.server?.port ?? 0
  }

  /** The service's parts exist: metrics and readiness read them from now on. */
  bind(state: MetadataAdminState): void {
    this.state = state
    this.lag = new ConsumerLagReader({
      bootstrap: state.liveBrokerEndpoints,
      logger: this.logger.child({ component: 'consumer-lag' }),
    })
    const groups = state.groups()
    if (groups !== undefined) this.watchGroups(groups)
  }

  /** Counts rebalances of a (new) group coordinator. */
  watchGroups(groups: GroupCoordinator): void {
    groups.groups.onGroupEvent = (groupId, event) => this.metrics.groupEvent(groupId, event)
  }

  markStopping(): void {
    this.stopping = true
  }

  readiness(): Readiness {
    if (this.stopping) return { ready: false, reason: 'the metadata service is shutting down' }
    const s = this.state
    if (s === undefined) return { ready: false, reason: 'starting: opening the metadata store' }
    if (s.isLost())
      return {
        ready: false,
        reason:
          'this instance is fenced (its ZooKeeper session expired, or another instance took over as controller); it must be restarted',
      }
    if (s.store instanceof ZooKeeperStore && !s.store.connected)
      return { ready: false, reason: 'not connected to ZooKeeper' }
    const election = s.election?.()
    if (election !== undefined) {
      if (election.isActive() || election.activeController() !== undefined) return { ready: true }
      return { ready: false, reason: 'no active controller known (an election is in progress)' }
    }
    if (s.controller() === undefined) return { ready: false, reason: 'the controller is not running' }
    return { ready: true }
  }

  /** A standby reports the epoch it saw in /controller, and zeros for the cluster gauges. */
  private controllerView(): ControllerView | undefined {
    const s = this.state
    const c = s?.controller()
    const election = s?.election?.()
    if (s === undefined) return undefined
    if (c === undefined) {
      const epoch = election?.activeController()?.epoch
      return epoch === undefined ? undefined : { controllerEpoch: epoch, active: false, liveBrokers: 0, topics: [] }
    }
    return {
      controllerEpoch: c.controllerEpoch,
      active: !s.isLost() && !this.stopping && (election === undefined || election.isActive()),
      liveBrokers: c.view.liveBrokerIds().length,
      topics: c.view.topics.values(),
    }
  }

  private groupsView(): GroupsView | undefined {
    const g = this.state?.groups()
    if (g === undefined) return undefined
    return {
      groups: [...g.groups.groups.values()].map((x) => ({
        groupId: x.groupId,
        state: x.state,
        members: x.members.size,
        generationId: x.generationId,
      })),
      committed: function* () {
        for (const groupId of g.offsets.groupIds()) {
          for (const o of g.offsets.list(groupId))
            yield { groupId, topic: o.topic, partition: o.partition, offset: o.offset }
        }
      },
    }
  }

  async close(): Promise<void> {
    await this.lag?.close()
    await this.server?.close()
  }
}
