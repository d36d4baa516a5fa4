import { describe, expect, it } from 'vitest'
import { ManualClock, SluiceError } from '@sluice/protocol'
import { HighWatermarkWaiters } from './hw-waiters.js'

/** The waiter's outcome so far: pending, released (with the ISR size) or the error code. */
function track(p: Promise<{ isrSize: number }>): () => string {
  let outcome = 'pending'
  p.then(
    (r) => {
      outcome = `released isr=${r.isrSize}`
    },
    (err: unknown) => {
      outcome = err instanceof SluiceError ? err.code : String(err)
    },
  )
  return () => outcome
}

/** Lets the promise callbacks of a settled waiter run. */
async function settle(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve))
}

describe('HighWatermarkWaiters', () => {
  it('a waiter times out exactly at its timeout, not 1 ms before, and leaves the list', async () => {
    const clock = new ManualClock()
    const waiters = new HighWatermarkWaiters('the high watermark', clock)
    const outcome = track(waiters.add(10n, 500))
    clock.advance(499)
    await settle()
    expect(outcome()).toBe('pending')
    expect(waiters.size).toBe(1)
    clock.advance(1)
    await settle()
    expect(outcome()).toBe('REQUEST_TIMED_OUT')
    expect(waiters.size).toBe(0)
  })

  it('a released waiter cancels its timer; the others keep waiting for their own offset', async () => {
    const clock = new ManualClock()
    const waiters = new HighWatermarkWaiters('the high watermark', clock)
    const first = track(waiters.add(5n, 1000))
    const second = track(waiters.add(8n, 1000))
    waiters.release(5n, 3)
    await settle()
    expect(first()).toBe('released isr=3')
    expect(second()).toBe('pending')
    expect(clock.pendingTimers).toBe(1)
    waiters.failAll(new SluiceError('NOT_LEADER_OR_FOLLOWER', 'lost leadership'))
    await settle()
    expect(second()).toBe('NOT_LEADER_OR_FOLLOWER')
    expect(clock.pendingTimers).toBe(0)
  })

  it('watch callbacks run inside release, in order; one that throws is reported and stops nothing', () => {
    const clock = new ManualClock()
    const errors: unknown[] = []
    const waiters = new HighWatermarkWaiters('the high watermark', clock, (err) => errors.push(err))
    const calls: string[] = []
    waiters.watch(3n, 1000, () => {
      calls.push('first')
      throw new Error('a bug in the owner')
    })
    waiters.watch(4n, 1000, (err, isrSize) => calls.push(`second ${err?.code ?? 'ok'} isr=${isrSize}`))
    waiters.watch(9n, 1000, (err) => calls.push(`third ${err?.code ?? 'ok'}`))
    waiters.release(4n, 2)
    // Synchronously, before release returns: no promise in between (the acks=all answer path).
    expect(calls).toEqual(['first', 'second ok isr=2'])
    expect(errors).toHaveLength(1)
    expect(waiters.size).toBe(1)
    expect(clock.pendingTimers).toBe(1)
    clock.advance(1000)
    expect(calls).toEqual(['first', 'second ok isr=2', 'third REQUEST_TIMED_OUT'])
    waiters.release(9n, 2) // already timed out: nothing is called twice
    expect(calls).toHaveLength(3)
  })
})
