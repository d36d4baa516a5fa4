import { describe, expect, it } from 'vitest'
import { renderCluster, renderPartitions, renderTopicList, underReplicated, type TopicView } from './views.js'

const orders: TopicView = {
  name: 'orders',
  internal: false,
  configs: {},
  partitions: [
    { topic: 'orders', partition: 1, leader: -1, leaderEpoch: 4, replicas: [2, 3], isr: [] },
    { topic: 'orders', partition: 0, leader: 1, leaderEpoch: 0, replicas: [1, 2], isr: [1, 2] },
  ],
}

describe('views', () => {
  it('keeps only under-replicated or offline partitions, and drops topics with none', () => {
    const healthy: TopicView = { ...orders, name: 'healthy', partitions: [orders.partitions[1]!] }
    const lagging: TopicView = {
      ...orders,
      name: 'lagging',
      partitions: [
        { topic: 'lagging', partition: 0, leader: 1, leaderEpoch: 2, replicas: [1, 2, 3], isr: [1, 3] },
        { topic: 'lagging', partition: 1, leader: 2, leaderEpoch: 0, replicas: [2, 3, 1], isr: [2, 3, 1] },
      ],
    }
    const result = underReplicated([orders, healthy, lagging])
    expect(result.map((t) => [t.name, t.partitions.map((p) => p.partition)])).toEqual([
      ['orders', [1]],
      ['lagging', [0]],
    ])
  })

  it('renders partitions sorted, with offline leaders as none', () => {
    expect(renderPartitions([orders])).toBe(
      [
        'TOPIC   PARTITION  LEADER  LEADER EPOCH  REPLICAS  ISR',
        'orders          0       1             0  1,2       1,2',
        'orders          1    none             4  2,3',
        '',
      ].join('\n'),
    )
  })

  it('renders the topic list sorted by name', () => {
    const offsets: TopicView = { name: '__consumer_offsets', internal: true, configs: {}, partitions: [] }
    expect(renderTopicList([orders, offsets])).toBe(
      [
        'TOPIC               PARTITIONS  REPLICATION  INTERNAL',
        '__consumer_offsets           0            0  yes',
        'orders                       2            2',
        '',
      ].join('\n'),
    )
  })

  it('renders the cluster with its brokers', () => {
    expect(
      renderCluster({
        clusterId: 'abc',
        controllerId: 1,
        brokers: [
          { brokerId: 2, host: '127.0.0.1', port: 9093, rack: '' },
          { brokerId: 1, host: '127.0.0.1', port: 9092, rack: 'r1' },
        ],
      }),
    ).toBe(
      [
        'cluster id  abc',
        'controller  1',
        '',
        'BROKER  HOST       PORT  RACK',
        '     1  127.0.0.1  9092  r1',
        '     2  127.0.0.1  9093  -',
        '',
      ].join('\n'),
    )
  })
})
