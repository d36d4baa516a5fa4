import { describe, expect, it } from 'vitest'
import { dataRoute } from './data-route.js'
import type { BrokerNode } from './metadata-cache.js'

const node = (kafkaEndpoint?: { host: string; port: number }): BrokerNode => ({
  brokerId: 1,
  host: '127.0.0.1',
  port: 9000,
  rack: '',
  endpoint: '127.0.0.1:9000',
  kafkaEndpoint,
})

describe('dataRoute', () => {
  it("takes the broker's Kafka listener when the client asks for Kafka and the broker advertises one", () => {
    expect(dataRoute(node({ host: 'h', port: 9092 }), 'kafka')).toEqual({
      key: 'kafka:h:9092',
      transport: 'kafka',
      host: 'h',
      port: 9092,
    })
  })

  it('falls back to gRPC for a broker without a Kafka listener, and for requests Kafka never answers', () => {
    const grpc = { key: 'grpc:127.0.0.1:9000', transport: 'grpc', endpoint: '127.0.0.1:9000' }
    expect(dataRoute(node(undefined), 'kafka')).toEqual(grpc)
    expect(dataRoute(node({ host: 'h', port: 9092 }), 'kafka', false)).toEqual(grpc)
  })

  it('stays on gRPC when the client asks for gRPC', () => {
    expect(dataRoute(node({ host: 'h', port: 9092 }), 'grpc').transport).toBe('grpc')
  })
})
