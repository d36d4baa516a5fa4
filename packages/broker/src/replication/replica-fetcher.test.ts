import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { ManualClock } from '@sluice/protocol'
import { ReplicaFetcher } from './replica-fetcher.js'

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
})
