/**
 * A group's total lag over time, for the chart on its page. The console samples, every
 * `intervalMs`, each group whose page (or history) was asked for in the last minute; a group
 * nobody looks at costs nothing. Each group keeps a bounded ring (`capacity` samples), and at
 * most `maxGroups` groups are kept: the one asked for least recently goes first. Answering a
 * group's page records a sample too, so the chart starts with the lag the page just showed.
 */
import type { SluiceClient } from '@sluice/client'
import { loadGroupLag } from '../group-lag.js'
import { DemandLoop, SampleRing } from './demand-loop.js'

export interface LagSample {
  readonly t: number
  readonly totalLag: bigint
}

interface Tracked {
  askedMs: number
  readonly ring: SampleRing<LagSample>
}

export interface LagHistoryOptions {
  readonly intervalMs?: number
  readonly capacity?: number
  readonly maxGroups?: number
  readonly activeForMs?: number
}

export class LagHistory {
  private readonly groups = new Map<string, Tracked>()
  private readonly loop: DemandLoop
  readonly intervalMs: number
  private readonly capacity: number
  private readonly maxGroups: number
  private readonly activeForMs: number

  constructor(
    private readonly client: SluiceClient,
    options: LagHistoryOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 5_000
    this.capacity = options.capacity ?? 360
    this.maxGroups = options.maxGroups ?? 200
    this.activeForMs = options.activeForMs ?? 60_000
    this.loop = new DemandLoop({
      intervalMs: this.intervalMs,
      idleAfterMs: this.activeForMs,
      tick: async () => await this.sampleActive(),
    })
  }

  /** The group's samples so far; asking keeps it sampled for another minute. */
  history(groupId: string): LagSample[] {
    return this.track(groupId).ring.toArray()
  }

  /** A lag just computed for the group's page. */
  record(groupId: string, totalLag: bigint): void {
    this.track(groupId).ring.push({ t: Date.now(), totalLag })
  }

  get sampling(): boolean {
    return this.loop.active
  }

  close(): void {
    this.loop.close()
  }

  private track(groupId: string): Tracked {
    const g = this.groups.get(groupId) ?? { askedMs: 0, ring: new SampleRing<LagSample>(this.capacity) }
    g.askedMs = Date.now()
    // Re-inserted on every ask, so the map's first key is always the least recently asked.
    this.groups.delete(groupId)
    this.groups.set(groupId, g)
    if (this.groups.size > this.maxGroups) this.groups.delete(this.groups.keys().next().value!)
    this.loop.demand()
    return g
  }

  private async sampleActive(): Promise<void> {
    const now = Date.now()
    const active = [...this.groups.entries()].filter(([, g]) => now - g.askedMs <= this.activeForMs)
    await Promise.all(
      active.map(async ([id, g]) => {
        // A group deleted meanwhile just gets no sample.
        const lag = await loadGroupLag(this.client, id).catch(() => undefined)
        if (lag !== undefined) g.ring.push({ t: Date.now(), totalLag: lag.totalLag })
      }),
    )
  }
}
