import pino from 'pino'
import { describe, expect, it, onTestFinished } from 'vitest'
import type { wire } from '@sluice/protocol'
import { MetadataCache } from '../metadata-cache.js'
import { fakeLeader } from './__fixtures__/fake-kafka-leader.js'
import { ReplicaFetcherManager } from './replica-fetcher-manager.js'
import type { ReplicaFetchTransportKind } from './replica-fetch-transport.js'

function broker(id: number, kafkaPort: number): wire.BrokerInfo__Output {
  return {
    broker_id: id,
    host: '127.0.0.1',
    port: 9000 + id,
    rack: '',
    broker_epoch: '5',
    admin_port: 0,
    kafka_host: kafkaPort === 0 ? '' : '127.0.0.1',
    kafka_port: kafkaPort,
  }
}

function manager(transport: ReplicaFetchTransportKind | undefined, overrides: Record<string, string> = {}) {
  const cache = new MetadataCache({ metadataEndpoints: ['127.0.0.1:1'] })
  cache.applyUpdate({
    full: true,
    brokers: [broker(1, 19092), broker(2, 0)],
    partitions: [],
    deleted_topics: [],
    topic_configs: [],
    controller_id: 1,
    controller_epoch: 1,
    metadata_endpoints: [],
    cluster_id: '',
  })
  return new ReplicaFetcherManager({
    brokerId: 3,
    cache,
    connectOverrides: overrides,
    ...(transport === undefined ? {} : { transport }),
    brokerEpoch: () => 1n,
    waitMaxMs: 500,
    minBytes: 1,
    maxBytesPerPartition: 1024,
    logger: pino({ level: 'silent' }),
  })
}

describe('ReplicaFetcherManager endpoints', () => {
  it("fetches from the leader's Kafka listener by default, over gRPC from a leader without one", () => {
    const m = manager(undefined)
    expect(m.transport).toBe('kafka')
    expect(m.endpointOf(1)).toEqual({ transport: 'kafka', address: '127.0.0.1:19092' })
    expect(m.endpointOf(2)).toEqual({ transport: 'grpc', address: '127.0.0.1:9002' })
    expect(m.endpointOf(9)).toBeUndefined()
  })

  it("fetches from the leader's gRPC port under 'grpc'", () => {
    const m = manager('grpc')
    expect(m.endpointOf(1)).toEqual({ transport: 'grpc', address: '127.0.0.1:9001' })
  })

  it("dials an override instead, as the transport's address", () => {
    expect(manager('kafka', { 1: '127.0.0.1:4001', 2: '127.0.0.1:4002' }).endpointOf(2)).toEqual({
      transport: 'kafka',
      address: '127.0.0.1:4002',
    })
    expect(manager('grpc', { 1: '127.0.0.1:4001' }).endpointOf(1)).toEqual({
      transport: 'grpc',
      address: '127.0.0.1:4001',
    })
  })
})

describe('ReplicaFetcherManager fallback', () => {
  it('fetches over gRPC from a leader whose Kafka listener lacks Fetch v15, until it registers again', async () => {
    const old = await fakeLeader([4, 13])
    onTestFinished(() => old.close())
    const cache = new MetadataCache({ metadataEndpoints: ['127.0.0.1:1'] })
    const snapshot = (epoch: string): wire.MetadataUpdate__Output => ({
      full: true,
      brokers: [{ ...broker(1, old.port), broker_epoch: epoch }],
      partitions: [],
      deleted_topics: [],
      topic_configs: [],
      controller_id: 1,
      controller_epoch: 1,
      metadata_endpoints: [],
      cluster_id: '',
    })
    cache.applyUpdate(snapshot('5'))
    const m = new ReplicaFetcherManager({
      brokerId: 3,
      cache,
      connectOverrides: {},
      brokerEpoch: () => 1n,
      waitMaxMs: 500,
      minBytes: 1,
      maxBytesPerPartition: 1024,
      logger: pino({ level: 'silent' }),
    })
    onTestFinished(() => m.stop())
    expect(m.endpointOf(1)).toEqual({ transport: 'kafka', address: `127.0.0.1:${old.port}` })
    // A follower replica as the fetcher reads it (it builds one fetch and sends it).
    const replica = {
      key: 't\u00000',
      topic: 't',
      partition: 0,
      logEndOffset: 0n,
      logStartOffset: 0n,
      lastFetchedEpoch: -1,
    }
    m.follow(replica as never, 1, 0)
    // Waits on the condition with a deadline (the fetcher's ApiVersions round trip runs meanwhile).
    const deadline = Date.now() + 10_000
    while (m.endpointOf(1)?.transport !== 'grpc' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    expect(m.endpointOf(1)).toEqual({ transport: 'grpc', address: '127.0.0.1:9001' })
    cache.applyUpdate(snapshot('6')) // registered again: maybe upgraded, so try Kafka again
    expect(m.endpointOf(1)?.transport).toBe('kafka')
  })
})
