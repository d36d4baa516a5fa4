/**
 * The broker's admin HTTP server (`--admin-port`, @sluice/server-kit): /metrics from
 * BrokerMetrics, /healthz, and /readyz. It starts first thing in startBroker, before log
 * recovery, so a liveness probe answers while a large data dir is being recovered; the parts
 * the metrics and readiness read are bound once they exist.
 *
 * Ready means able to serve: registered with the metadata service, the session's first full
 * snapshot applied, and the lease live (a heartbeat acknowledged within the session timeout);
 * this is MetadataSession.hasLease, the same rule that lets a leader take writes.
 */
import { startProcessAdmin, type AdminServer, type ProcessAdminOptions, type Readiness } from '@sluice/server-kit'
import type { MetadataCache } from '../metadata-cache.js'
import type { MetadataSession } from '../metadata-session.js'
import type { ReplicaManager } from '../replica-manager.js'
import { BrokerMetrics } from './broker-metrics.js'

export interface BrokerAdminState {
  readonly replicas: ReplicaManager
  readonly cache: MetadataCache
  readonly session: () => MetadataSession | undefined
}

export class BrokerAdmin {
  readonly metrics: BrokerMetrics
  private state: BrokerAdminState | undefined
  private stopping = false
  private server: AdminServer | undefined

  private constructor() {
    this.metrics = new BrokerMetrics({
      replicas: () => this.state?.replicas.list() ?? [],
      minInsyncReplicas: (topic) => this.state?.cache.topicConfig(topic)['min.insync.replicas'] ?? 1,
      brokerEpoch: () => this.state?.session()?.brokerEpoch,
      hasLease: () => this.state?.session()?.hasLease() ?? false,
    })
  }

  static async start(options: ProcessAdminOptions): Promise<BrokerAdmin> {
    const admin = new BrokerAdmin()
    admin.server = await startProcessAdmin(options, admin.metrics.registry, () => admin.readiness())
    return admin
  }

  get port(): number {
    return this.server?.port ?? 0
  }

  /** The broker's parts exist: metrics and readiness read them from now on. */
  bind(state: BrokerAdminState): void {
    this.state = state
  }

  /** The broker is stopping: not ready any more, while /healthz and /metrics still answer. */
  markStopping(): void {
    this.stopping = true
  }

  readiness(): Readiness {
    if (this.stopping) return { ready: false, reason: 'the broker is shutting down' }
    const session = this.state?.session()
    if (session === undefined)
      return { ready: false, reason: 'starting: recovering logs, not yet registered with the metadata service' }
    if (session.brokerEpoch === undefined) return { ready: false, reason: 'not registered with the metadata service' }
    if (!session.hasLease()) {
      return {
        ready: false,
        reason:
          'no live metadata lease: no heartbeat acknowledged within the session timeout, or the first metadata snapshot is not applied yet',
      }
    }
    return { ready: true }
  }

  async close(): Promise<void> {
    await this.server?.close()
  }
}
