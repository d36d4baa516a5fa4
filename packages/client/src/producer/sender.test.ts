import { describe, expect, it } from 'vitest'
import { ManualClock, SluiceError } from '@sluice/protocol'
import { silentLogger } from '../logger.js'
import type { ConnectionPool } from '../network/connection-pool.js'
import type { MetadataCache } from '../network/metadata-cache.js'
import { RecordAccumulator } from './accumulator.js'
import { Sender } from './sender.js'

/** Lets the sender's wakeup (setImmediate) and promise callbacks run. */
const settle = async (): Promise<void> => {
  await new Promise<void>((resolve) => setImmediate(resolve))
}

describe('Sender (on a ManualClock)', () => {
  it('drains a lingering batch when its linger has passed on the clock, not one ms before', async () => {
    const clock = new ManualClock(5_000)
    const acc = new RecordAccumulator({ batchBytes: 1 << 20, lingerMs: 50, clock })
    // The leader is unknown, so a batch that is ready makes the sender ask for metadata: that
    // request is what shows the batch became ready. Nothing here needs a network.
    const refreshedAt: number[] = []
    const cache = {
      brokers: new Map(),
      leaderOf: () => undefined,
      refresh: async () => {
        refreshedAt.push(clock.nowMs())
        await new Promise<never>(() => {})
      },
    } as unknown as MetadataCache
    const sender = new Sender(
      acc,
      cache,
      {} as ConnectionPool,
      {
        acks: 1,
        compression: 'none',
        maxInFlight: 1,
        deliveryTimeoutMs: 120_000,
        requestTimeoutMs: 30_000,
        clientId: 'test',
        retry: { retries: 3, initialBackoffMs: 100, maxBackoffMs: 1000, factor: 2 },
        clock,
      },
      silentLogger,
    )
    acc.add('t', 0, { value: Buffer.from('v') }, 10)
    sender.wakeup()
    await settle()
    expect(refreshedAt).toEqual([])
    clock.advance(49)
    expect(refreshedAt).toEqual([])
    clock.advance(1)
    expect(refreshedAt).toEqual([5_050])
    sender.close(new SluiceError('CLIENT_CLOSED', 'the test is over'))
    expect(clock.pendingTimers).toBe(0)
  })
})
