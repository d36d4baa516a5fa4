import { describe, expect, it } from 'vitest'
import { ManualClock, type wire } from '@sluice/protocol'
import { silentLogger } from '../logger.js'
import { DEFAULT_RETRY } from '../options.js'
import type { ConnectionPool } from './connection-pool.js'
import { MetadataCache } from './metadata-cache.js'

const RESPONSE = {
  cluster_id: 'c',
  controller_id: 3000,
  metadata_endpoints: [],
  brokers: [
    { broker_id: 1, host: '127.0.0.1', port: 9092, rack: '', kafka_host: '', kafka_port: 0 },
    { broker_id: 2, host: '127.0.0.1', port: 9093, rack: '', kafka_host: 'kafka.local', kafka_port: 19092 },
  ],
  topics: [],
} as unknown as wire.MetadataResponse__Output

/** A pool whose one broker answers every Metadata request at once; counts the requests. */
function fakePool(): { pool: ConnectionPool; requests: () => number } {
  let n = 0
  const client = {
    Metadata: (_req: unknown, _opts: unknown, cb: (err: null, res: wire.MetadataResponse__Output) => void) => {
      n++
      setImmediate(() => {
        cb(null, RESPONSE)
      })
      return { cancel: () => {} }
    },
  }
  return { pool: { brokerClient: () => client } as unknown as ConnectionPool, requests: () => n }
}

async function turn(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve))
}

describe('MetadataCache', () => {
  it('spaces refreshes metadataMinRefreshMs apart on its clock: the next request goes out exactly then, not 1 ms before', async () => {
    const clock = new ManualClock(1_000_000)
    const { pool, requests } = fakePool()
    const cache = new MetadataCache(
      pool,
      {
        bootstrap: ['127.0.0.1:9092'],
        clientId: 't',
        logger: silentLogger,
        requestTimeoutMs: 1000,
        retry: DEFAULT_RETRY,
        metadataMinRefreshMs: 500,
        dataTransport: 'kafka',
      },
      clock,
    )
    await cache.refresh()
    expect(requests()).toBe(1)
    expect(cache.clusterId).toBe('c')
    let done = false
    const second = cache.refresh().then(() => {
      done = true
    })
    clock.advance(499)
    await turn()
    expect(requests()).toBe(1)
    clock.advance(1)
    await second
    expect(done).toBe(true)
    expect(requests()).toBe(2)
  })

  it("exposes each broker's advertised Kafka listener, and none for a broker without one (kafka_port 0)", async () => {
    const { pool } = fakePool()
    const cache = new MetadataCache(pool, {
      bootstrap: ['127.0.0.1:9092'],
      clientId: 't',
      logger: silentLogger,
      requestTimeoutMs: 1000,
      retry: DEFAULT_RETRY,
      metadataMinRefreshMs: 0,
      dataTransport: 'kafka',
    })
    await cache.refresh()
    expect(cache.brokers.get(1)?.kafkaEndpoint).toBeUndefined()
    expect(cache.brokers.get(2)?.kafkaEndpoint).toEqual({ host: 'kafka.local', port: 19092 })
  })
})
