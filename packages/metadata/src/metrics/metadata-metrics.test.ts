import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { Registry } from 'prom-client'
import { MetadataMetrics, REBALANCE_EVENT, type ControllerView, type GroupsView } from './metadata-metrics.js'
import type { ConsumerLagReader } from './consumer-lag.js'

async function value(
  registry: Registry,
  name: string,
  labels: Record<string, string> = {},
): Promise<number | undefined> {
  const m = await registry.getSingleMetric(name)?.get()
  return m?.values.find((v) => Object.entries(labels).every(([k, x]) => String(v.labels[k]) === x))?.value
}

describe('MetadataMetrics', () => {
  it('reports cluster gauges only while active, and lag from committed and end offsets', async () => {
    const registry = new Registry()
    let controller: ControllerView | undefined = {
      controllerEpoch: 7,
      active: true,
      liveBrokers: 2,
      topics: [
        {
          states: [
            { leader: 1, isr: [1, 2] },
            { leader: -1, isr: [2] },
          ],
          assignment: [
            [1, 2],
            [2, 1],
          ],
        },
        { states: [{ leader: 2, isr: [2] }], assignment: [[2, 1]] },
      ],
    }
    const groups: GroupsView = {
      groups: [{ groupId: 'g', state: 'Stable', members: 3, generationId: 4 }],
      committed: () => [
        { groupId: 'g', topic: 't', partition: 0, offset: 10n },
        { groupId: 'g', topic: 't', partition: 1, offset: 5n },
      ],
    }
    const lag = { endOffsets: async () => new Map([['t', new Map([[0, 25n]])]]) } as unknown as ConsumerLagReader
    const m = new MetadataMetrics({ controller: () => controller, groups: () => groups, lag: () => lag }, registry)
    m.leaderChanged(-1, 1)
    m.leaderChanged(1, 2)
    m.leaderChanged(2, -1)
    m.leaderChanged(2, 2)
    m.groupEvent('g', REBALANCE_EVENT)
    m.groupEvent('g', 'stable')

    expect(await value(registry, 'sluice_controller_active')).toBe(1)
    expect(await value(registry, 'sluice_controller_epoch')).toBe(7)
    expect(await value(registry, 'sluice_offline_partitions')).toBe(1)
    expect(await value(registry, 'sluice_cluster_under_replicated_partitions')).toBe(2)
    expect(await value(registry, 'sluice_cluster_partitions')).toBe(3)
    expect(await value(registry, 'sluice_live_brokers')).toBe(2)
    expect(await value(registry, 'sluice_leader_elections_total')).toBe(2)
    expect(await value(registry, 'sluice_partitions_gone_offline_total')).toBe(1)
    expect(await value(registry, 'sluice_group_rebalances_total', { group: 'g' })).toBe(1)
    expect(await value(registry, 'sluice_group_members', { group: 'g' })).toBe(3)
    expect(await value(registry, 'sluice_groups', { state: 'Stable' })).toBe(1)
    expect(await value(registry, 'sluice_group_committed_offset', { partition: '1' })).toBe(5)
    expect(await value(registry, 'sluice_consumer_group_lag', { partition: '0' })).toBe(15)
    // No end offset known for partition 1: no lag series rather than a wrong one.
    expect(await value(registry, 'sluice_consumer_group_lag', { partition: '1' })).toBeUndefined()

    controller = { ...controller, active: false }
    expect(await value(registry, 'sluice_controller_active')).toBe(0)
    // A standby reports 0, so summing over instances counts the active controller's view once.
    expect(await value(registry, 'sluice_offline_partitions')).toBe(0)
    expect(await value(registry, 'sluice_live_brokers')).toBe(0)
    controller = undefined
    expect(await value(registry, 'sluice_controller_epoch')).toBe(0)
  })

  it('matches the rebalance event name group-core.ts emits', async () => {
    const src = await readFile(new URL('../group/group-core.ts', import.meta.url), 'utf8')
    expect(src).toContain(`this.event('${REBALANCE_EVENT}'`)
  })
})

describe('docs/metrics.md', () => {
  it('documents every sluice_ metric the metadata service registers', async () => {
    const docs = await readFile(new URL('../../../../docs/metrics.md', import.meta.url), 'utf8')
    const registry = new Registry()
    new MetadataMetrics({ controller: () => undefined, groups: () => undefined, lag: () => undefined }, registry)
    const names = registry
      .getMetricsAsArray()
      .map((m) => m.name)
      .filter((n) => n.startsWith('sluice_'))
    expect(names.length).toBeGreaterThan(12)
    for (const name of names) expect(docs, name).toContain(`| \`${name}\` |`)
  })
})
