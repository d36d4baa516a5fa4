import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { ManualClock, type wire } from '@sluice/protocol'
import type { Partition } from '../partition.js'
import { ReplicaFetcher } from './replica-fetcher.js'
import type { ReplicaFetchConnection } from './replica-fetch-transport.js'

/** Lets the fetch loop run up to its next wait. */
async function turn(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve))
}

describe('ReplicaFetcher', () => {
  it('while the source broker is unknown, looks it up again exactly every backoff (50 ms) on its clock, and stop() ends the wait', async () => {
    const clock = new ManualClock()
    let lookups = 0
    const fetcher = new ReplicaFetcher({
      brokerId: 1,
      sourceBrokerId: 2,
      resolveEndpoint: () => {
        lookups++
        return undefined
      },
      connect: () => {
        throw new Error('no endpoint, so no connection')
      },
      brokerEpoch: () => 1n,
      waitMaxMs: 500,
      minBytes: 1,
      maxBytesPerPartition: 1024,
      logger: pino({ level: 'silent' }),
      clock,
    })
    await turn()
    expect(lookups).toBe(1)
    clock.advance(49)
    await turn()
    expect(lookups).toBe(1)
    clock.advance(1)
    await turn()
    expect(lookups).toBe(2)
    clock.advance(50)
    await turn()
    expect(lookups).toBe(3)
    await fetcher.stop()
    expect(clock.pendingTimers).toBe(0)
  })

  it('gives up on a connection whose answer is overdue, and never on one that answers in time', async () => {
    // The first connection never answers; every later one answers each fetch after 5 ms. The
    // deadline is waitMaxMs 10 + grace 40 = 50 ms, re-armed for every fetch.
    const connections: string[] = []
    let answered = 0
    let stopAnswering = false
    const answerSoon = (req: wire.FetchRequest__Output): Promise<wire.FetchResponse__Output> =>
      new Promise((resolve) => {
        if (stopAnswering) return // the connection went quiet: this fetch is never answered
        setTimeout(() => {
          answered++
          resolve({
            correlation_id: req.correlation_id,
            error_code: 0,
            error_message: '',
            topics: [],
            throttle_time_ms: 0,
          })
        }, 5)
      })
    const connect = (): ReplicaFetchConnection => {
      const silent = connections.length === 0 || stopAnswering
      connections.push(silent ? 'silent' : 'answering')
      return { fetch: silent ? () => new Promise<never>(() => {}) : answerSoon, close: () => {} }
    }
    const fetcher = new ReplicaFetcher({
      brokerId: 1,
      sourceBrokerId: 2,
      resolveEndpoint: () => ({ address: '127.0.0.1:1', transport: 'kafka' }),
      connect,
      brokerEpoch: () => 1n,
      waitMaxMs: 10,
      minBytes: 1,
      maxBytesPerPartition: 1024,
      logger: pino({ level: 'silent' }),
      responseGraceMs: 40,
    })
    const replica = {
      key: 't\u00000',
      topic: 't',
      partition: 0,
      logEndOffset: 0n,
      logStartOffset: 0n,
      lastFetchedEpoch: -1,
    }
    fetcher.add(replica as unknown as Partition, 0)
    const deadline = Date.now() + 5000
    while (connections.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5))
    expect(connections).toEqual(['silent', 'answering'])
    // 40 answers of 5 ms each span four deadlines: none may fire while answers keep coming.
    while (answered < 40 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5))
    expect(answered).toBeGreaterThanOrEqual(40)
    expect(connections).toEqual(['silent', 'answering'])
    // And a connection that goes quiet later is given up on too: the deadline is re-armed each time.
    stopAnswering = true
    while (connections.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5))
    expect(connections).toEqual(['silent', 'answering', 'silent'])
    await fetcher.stop()
  })
})
