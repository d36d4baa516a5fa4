import { describe, expect, it } from 'vitest'
import { ManualClock, SluiceError } from '@sluice/protocol'
import { IdempotenceManager } from './idempotence.js'
import type { ProducerBatch } from './producer-batch.js'

async function turn(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve))
}

describe('IdempotenceManager', () => {
  it('after a failed InitProducerId asks again exactly retryBackoffMs later on its clock, not 1 ms before', async () => {
    const clock = new ManualClock()
    let fetches = 0
    const idem = new IdempotenceManager({
      maxInFlight: 5,
      retryBackoffMs: 100,
      wakeup: () => {},
      clock,
      fetchIdentity: async () => {
        fetches++
        if (fetches === 1) throw new SluiceError('COORDINATOR_NOT_AVAILABLE', 'not yet')
        return { producerId: 7n, epoch: 0 }
      },
    })
    const head = { key: 't-0' } as unknown as ProducerBatch
    idem.start()
    await turn()
    expect(fetches).toBe(1)
    clock.advance(99)
    expect(idem.mayDrain(head, 1)).toBe(false)
    expect(fetches).toBe(1)
    expect(head.lastError?.code).toBe('COORDINATOR_NOT_AVAILABLE')
    clock.advance(1)
    expect(idem.mayDrain(head, 1)).toBe(false)
    expect(fetches).toBe(2)
    await turn()
    expect(idem.mayDrain(head, 1)).toBe(true)
    expect(idem.sharedIdentity).toEqual({ producerId: 7n, epoch: 0 })
  })
})
