import { describe, expect, it } from 'vitest'
import { errorId, type wire } from '@sluice/protocol'
import { MetadataCache } from './metadata-cache.js'

function state(
  topic: string,
  partition: number,
  leader: number,
  more: Partial<wire.PartitionState__Output> = {},
): wire.PartitionState__Output {
  return {
    topic,
    partition,
    leader,
    leader_epoch: 0,
    replicas: [leader],
    isr: [leader],
    controller_epoch: 1,
    partition_epoch: 0,
    topic_id: `id-${topic}`,
    ...more,
  }
}

function broker(id: number): wire.BrokerInfo__Output {
  return {
    broker_id: id,
    host: '127.0.0.1',
    port: 9000 + id,
    rack: '',
    broker_epoch: '5',
    admin_port: 0,
    kafka_host: id === 1 ? 'kafka-1.local' : '',
    kafka_port: id === 1 ? 19092 : 0,
  }
}

function update(more: Partial<wire.MetadataUpdate__Output>): wire.MetadataUpdate__Output {
  return {
    full: false,
    brokers: [broker(1), broker(2)],
    partitions: [],
    deleted_topics: [],
    topic_configs: [],
    controller_id: 1,
    controller_epoch: 1,
    metadata_endpoints: [],
    cluster_id: '',
    ...more,
  }
}

describe('MetadataCache', () => {
  it('applies a full snapshot and answers Metadata for every non-internal topic', () => {
    const cache = new MetadataCache({ metadataEndpoints: ['127.0.0.1:1'] })
    cache.applyUpdate(
      update({
        full: true,
        cluster_id: 'c1',
        partitions: [
          state('orders', 1, 2),
          state('orders', 0, 1),
          state('__consumer_offsets', 0, 1),
          state('logs', 0, -1, { replicas: [3], isr: [] }),
        ],
      }),
    )
    const res = cache.metadataResponse({ topics: [], include_internal: false })
    expect(res.cluster_id).toBe('c1')
    expect(res.metadata_endpoints).toEqual(['127.0.0.1:1'])
    expect(res.brokers?.map((b) => b.broker_id)).toEqual([1, 2])
    expect(res.topics?.map((t) => t.name)).toEqual(['logs', 'orders'])
    const orders = res.topics?.find((t) => t.name === 'orders')
    expect(orders?.topic_id).toBe('id-orders')
    expect(orders?.partitions?.map((p) => [p.partition, p.leader])).toEqual([
      [0, 1],
      [1, 2],
    ])
    const logs = res.topics?.find((t) => t.name === 'logs')
    expect(logs?.partitions?.[0]?.error_code).toBe(errorId('LEADER_NOT_AVAILABLE'))
    expect(logs?.partitions?.[0]?.offline_replicas).toEqual([3])
    const withInternal = cache.metadataResponse({ topics: [], include_internal: true })
    expect(withInternal.topics?.map((t) => t.name)).toContain('__consumer_offsets')
  })

  it("keeps every broker's Kafka endpoint: none for a broker registered without one or not live", () => {
    const cache = new MetadataCache({ metadataEndpoints: ['127.0.0.1:1'] })
    cache.applyUpdate(update({ full: true }))
    expect(cache.kafkaEndpoint(1)).toEqual({ host: 'kafka-1.local', port: 19092 })
    expect(cache.kafkaEndpoint(2)).toBeUndefined()
    expect(cache.kafkaEndpoint(3)).toBeUndefined()
    const b1 = cache.metadataResponse({ topics: [], include_internal: false }).brokers?.[0]
    expect([b1?.kafka_host, b1?.kafka_port]).toEqual(['kafka-1.local', 19092])
    cache.applyUpdate(update({ brokers: [broker(2)] }))
    expect(cache.kafkaEndpoint(1)).toBeUndefined()
  })

  it('answers unknown and invalid requested topics with a per-topic error', () => {
    const cache = new MetadataCache({ metadataEndpoints: [] })
    cache.applyUpdate(update({ full: true, partitions: [state('a', 0, 1)] }))
    const res = cache.metadataResponse({ topics: ['a', 'nope', 'bad name!'], include_internal: false })
    expect(res.topics?.map((t) => [t.name, t.error_code])).toEqual([
      ['a', 0],
      ['nope', errorId('UNKNOWN_TOPIC_OR_PARTITION')],
      ['bad name!', errorId('INVALID_TOPIC_EXCEPTION')],
    ])
  })

  it('plans a delta without changing the cache, then applies it', () => {
    const cache = new MetadataCache({ metadataEndpoints: [] })
    cache.applyUpdate(update({ full: true, partitions: [state('a', 0, 1), state('a', 1, 1), state('b', 0, 1)] }))
    const delta = update({
      partitions: [state('a', 0, 1), state('a', 1, 2, { leader_epoch: 1 }), state('c', 0, 1)],
      deleted_topics: ['b'],
      topic_configs: [
        { topic: 'c', topic_id: 'id-c', entries: [{ name: 'max.message.bytes', value: '2000', source: 'topic' }] },
      ],
    })
    const plan = cache.planUpdate(delta)
    expect(plan.upserted.map((p) => `${p.topic}-${p.partition}`)).toEqual(['a-1', 'c-0'])
    expect(plan.removed).toEqual([{ topic: 'b', partition: 0 }])
    expect(plan.topicConfig('c')['max.message.bytes']).toBe(2000)
    expect(plan.configTopics).toEqual(['c'])
    expect(cache.hasTopic('c')).toBe(false)
    expect(cache.partition('b', 0)).toBeDefined()

    cache.applyUpdate(delta)
    expect(cache.partition('a', 1)?.leader).toBe(2)
    expect(cache.partition('b', 0)).toBeUndefined()
    expect(cache.topicConfig('c')['max.message.bytes']).toBe(2000)
    expect(cache.topicConfig('a')['max.message.bytes']).toBe(1024 * 1024 + 12)
  })

  it('treats partitions missing from a later full snapshot as removed', () => {
    const cache = new MetadataCache({ metadataEndpoints: [] })
    cache.applyUpdate(update({ full: true, partitions: [state('a', 0, 1), state('b', 0, 1)] }))
    const snapshot = update({ full: true, partitions: [state('a', 0, 1)] })
    expect(cache.planUpdate(snapshot).removed).toEqual([{ topic: 'b', partition: 0 }])
    cache.applyUpdate(snapshot)
    expect(cache.topicNames()).toEqual(['a'])
  })

  it('skips config entries it cannot parse and tells clients the service endpoints, then its configured ones', () => {
    const bad: string[] = []
    const cache = new MetadataCache({ metadataEndpoints: ['x:1'], onBadConfig: (t) => bad.push(t) })
    cache.applyUpdate(
      update({
        full: true,
        partitions: [state('a', 0, 1)],
        metadata_endpoints: ['m1:1', 'm2:2'],
        topic_configs: [
          {
            topic: 'a',
            topic_id: 'id-a',
            entries: [
              { name: 'max.message.bytes', value: 'lots', source: 'topic' },
              { name: 'segment.bytes', value: '4096', source: 'topic' },
              { name: 'some.future.config', value: '1', source: 'topic' },
            ],
          },
        ],
      }),
    )
    expect(bad).toEqual(['a'])
    expect(cache.topicConfig('a')['segment.bytes']).toBe(4096)
    expect(cache.topicConfig('a')['max.message.bytes']).toBe(1024 * 1024 + 12)
    expect(cache.metadataEndpoints).toEqual(['m1:1', 'm2:2', 'x:1'])
  })
})
