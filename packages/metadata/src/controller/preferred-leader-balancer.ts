/**
 * Automatic preferred-leader election (Kafka's auto.leader.rebalance, made event-driven): when a
 * partition's preferred replica (the first in its assignment) re-enters the ISR while another
 * replica leads, leadership moves back to it after `delayMs`. The delay lets a flapping broker
 * settle and lets an explicit ElectLeaders go first; then one pass elects the preferred replica of
 * every partition where it is live, in sync and not leading, in one commit (one delta to the
 * brokers). One timer at most, and only while a pass is due.
 */
import type { Logger } from 'pino'
import { systemClock, type Clock, type Timer } from '@sluice/protocol'
import type { ClusterView, TopicState } from './cluster-view.js'
import type { PartitionStateRecord } from './layout.js'
import { electPreferred, type ElectionContext } from './partition-election.js'

/**
 * What a pass needs of the controller (controller.ts is the one host): its view of the cluster,
 * its serial queue and its commit path. `C` is the controller's state change, opaque here.
 */
export interface PreferredLeaderHost<C> {
  readonly view: Pick<ClusterView, 'topics'>
  readonly log: Pick<Logger, 'info' | 'warn'>
  serial<T>(job: () => Promise<T>): Promise<T>
  electionContext(topic: string): ElectionContext
  partitionChange(next: (t: TopicState, p: number) => PartitionStateRecord | undefined): C
  commit(change: C): Promise<void>
}

export class PreferredLeaderBalancer<C> {
  private timer: Timer | undefined
  private stopped = false

  /** `delayMs` < 0 disables the automatic election (ElectLeaders still works). */
  constructor(
    private readonly ctl: PreferredLeaderHost<C>,
    private readonly delayMs: number,
    private readonly clock: Clock = systemClock,
  ) {}

  /** The ISR of a partition grew by `joined`; schedules a pass if its preferred replica is among them. */
  onIsrExpanded(replicas: readonly number[], leader: number, joined: readonly number[]): void {
    const preferred = replicas[0]
    if (
      this.delayMs < 0 ||
      this.stopped ||
      preferred === undefined ||
      preferred === leader ||
      !joined.includes(preferred)
    )
      return
    if (this.timer !== undefined) return // the pending pass covers this partition too
    this.timer = this.clock
      .setTimeout(() => {
        this.timer = undefined
        this.ctl
          .serial(async () => {
            await this.pass()
          })
          .catch((e: unknown) => {
            if (!this.stopped) this.ctl.log.warn({ err: e }, 'automatic preferred-leader election failed')
          })
      }, this.delayMs)
      .unref()
  }

  stop(): void {
    this.stopped = true
    this.timer?.cancel()
    this.timer = undefined
  }

  private async pass(): Promise<void> {
    const changes = new Map<string, PartitionStateRecord>()
    for (const t of this.ctl.view.topics.values()) {
      for (let p = 0; p < t.states.length; p++) {
        const s = t.states[p]!
        const replicas = t.assignment[p]!
        if (replicas[0] === undefined || s.leader === replicas[0]) continue
        const outcome = electPreferred(replicas, s, this.ctl.electionContext(t.name))
        if (outcome.ok) changes.set(`${t.name}\u0000${p}`, outcome.state)
      }
    }
    if (changes.size === 0) return
    await this.ctl.commit(this.ctl.partitionChange((t, p) => changes.get(`${t.name}\u0000${p}`)))
    this.ctl.log.info({ partitions: changes.size }, 'leadership moved back to preferred replicas')
  }
}
