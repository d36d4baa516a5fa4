import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { Registry } from 'prom-client'
import { encodeRecordBatch, errorId, validateBatches } from '@sluice/protocol'
import { partitionAnswer } from '../server/fetch-types.js'
import { producePartitionAnswer } from '../server/produce-types.js'
import {
  BrokerMetrics,
  countRecords,
  ISR_EXPAND_EVENT,
  ISR_SHRINK_EVENT,
  type HostedReplica,
} from './broker-metrics.js'

function batch(n: number): Buffer {
  return encodeRecordBatch(Array.from({ length: n }, (_, i) => ({ value: Buffer.from(`v${i}`) })))
}

function replica(over: Partial<HostedReplica> & Pick<HostedReplica, 'topic' | 'partition'>): HostedReplica {
  return {
    isLeader: true,
    replicas: [1, 2],
    isr: [1, 2],
    highWatermark: 5n,
    logEndOffset: 5n,
    logStartOffset: 0n,
    log: { sizeBytes: 100, segmentList: [{}] },
    ...over,
  }
}

async function value(
  registry: Registry,
  name: string,
  labels: Record<string, string> = {},
): Promise<number | undefined> {
  const m = await registry.getSingleMetric(name)?.get()
  return m?.values.find((v) => Object.entries(labels).every(([k, x]) => String(v.labels[k]) === x))?.value
}

describe('countRecords', () => {
  it('adds the record counts of whole batches from their headers and skips a truncated tail', () => {
    const two = Buffer.concat([batch(3), batch(4)])
    expect(countRecords(two)).toBe(7)
    expect(countRecords(two.subarray(0, two.length - 1))).toBe(3)
    expect(countRecords(Buffer.alloc(0))).toBe(0)
    expect(countRecords(Buffer.alloc(30))).toBe(0)
  })
})

describe('BrokerMetrics', () => {
  it('counts traffic per topic, errors per code and ISR changes, and computes partition gauges on scrape', async () => {
    const registry = new Registry()
    let replicas: HostedReplica[] = [
      replica({ topic: 'a', partition: 0 }),
      replica({ topic: 'a', partition: 1, isr: [1] }),
      replica({ topic: 'b', partition: 0, isLeader: false, log: { sizeBytes: 7, segmentList: [{}, {}] } }),
    ]
    const m = new BrokerMetrics(
      { replicas: () => replicas, minInsyncReplicas: () => 2, brokerEpoch: () => 4n, hasLease: () => true },
      registry,
    )
    const data = Buffer.concat([batch(2), batch(3)])
    m.produced('a', data.length, validateBatches(data))
    m.produceAnswered([
      {
        topic: 'a',
        partitions: [
          producePartitionAnswer(0, { error_code: 0, error_message: '' }),
          producePartitionAnswer(1, { error_code: errorId('NOT_LEADER_OR_FOLLOWER'), error_message: '' }),
        ],
      },
    ])
    const answer = (partition: number, errorCode: number, records: Buffer) =>
      partitionAnswer(partition, { error_code: errorCode, error_message: '' }, undefined, records)
    m.fetchAnswered(false, {
      errorCode: 0,
      errorMessage: '',
      topics: [
        {
          topic: 'a',
          partitions: [answer(0, 0, data), answer(1, errorId('OFFSET_OUT_OF_RANGE'), Buffer.alloc(0))],
        },
      ],
    })
    m.fetchAnswered(true, {
      errorCode: 0,
      errorMessage: '',
      topics: [{ topic: 'a', partitions: [answer(0, 0, data)] }],
    })
    m.partitionEvent(ISR_SHRINK_EVENT)
    m.partitionEvent(ISR_EXPAND_EVENT)
    m.partitionEvent(ISR_EXPAND_EVENT)
    m.partitionEvent('ISR changed')

    expect(await value(registry, 'sluice_topic_records_in_total', { topic: 'a' })).toBe(5)
    expect(await value(registry, 'sluice_topic_bytes_in_total', { topic: 'a' })).toBe(data.length)
    // The follower fetch is replication, not consumer traffic.
    expect(await value(registry, 'sluice_topic_records_out_total', { topic: 'a' })).toBe(5)
    expect(await value(registry, 'sluice_topic_bytes_out_total', { topic: 'a' })).toBe(data.length)
    expect(await value(registry, 'sluice_produce_errors_total', { code: 'NOT_LEADER_OR_FOLLOWER' })).toBe(1)
    expect(await value(registry, 'sluice_fetch_errors_total', { code: 'OFFSET_OUT_OF_RANGE' })).toBe(1)
    expect(await value(registry, 'sluice_isr_shrinks_total')).toBe(1)
    expect(await value(registry, 'sluice_isr_expands_total')).toBe(2)
    expect(await value(registry, 'sluice_under_replicated_partitions')).toBe(1)
    expect(await value(registry, 'sluice_under_min_isr_partitions')).toBe(1)
    expect(await value(registry, 'sluice_partitions', { role: 'leader' })).toBe(2)
    expect(await value(registry, 'sluice_log_segments', { topic: 'b', partition: '0' })).toBe(2)
    expect(await value(registry, 'sluice_log_size_bytes', { topic: 'b', partition: '0' })).toBe(7)
    expect(await value(registry, 'sluice_partition_high_watermark', { topic: 'b', partition: '0' })).toBeUndefined()
    expect(await value(registry, 'sluice_broker_epoch')).toBe(4)

    // A partition that went away drops out of the next scrape.
    replicas = replicas.slice(0, 1)
    expect(await value(registry, 'sluice_log_size_bytes', { topic: 'b', partition: '0' })).toBeUndefined()
    expect(await value(registry, 'sluice_under_replicated_partitions')).toBe(0)
  })
})

describe('ISR event names', () => {
  it('are the ones partition.ts emits (the counters match on them)', async () => {
    const src = await readFile(new URL('../partition.ts', import.meta.url), 'utf8')
    expect(src).toContain(`this.event('${ISR_SHRINK_EVENT}'`)
    expect(src).toContain(`this.event('${ISR_EXPAND_EVENT}'`)
  })
})

describe('docs/metrics.md', () => {
  it('documents every sluice_ metric the broker registers', async () => {
    const docs = await readFile(new URL('../../../../docs/metrics.md', import.meta.url), 'utf8')
    const registry = new Registry()
    new BrokerMetrics(
      { replicas: () => [], minInsyncReplicas: () => 1, brokerEpoch: () => undefined, hasLease: () => false },
      registry,
    )
    const names = registry
      .getMetricsAsArray()
      .map((m) => m.name)
      .filter((n) => n.startsWith('sluice_'))
    expect(names.length).toBeGreaterThan(15)
    for (const name of names) expect(docs, name).toContain(`| \`${name}\` |`)
  })
})
