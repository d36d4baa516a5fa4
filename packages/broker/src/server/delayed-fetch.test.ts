import { describe, expect, it } from 'vitest'
import { DelayedFetchPurgatory, type DelayedFetchOutcome, type Timers } from './delayed-fetch.js'

/** A manual clock: timers fire only when the test advances time. */
class FakeTimers implements Timers {
  time = 0
  private next = 1
  private readonly pending = new Map<number, { at: number; fn: () => void }>()
  set(fn: () => void, ms: number): unknown {
    const id = this.next++
    this.pending.set(id, { at: this.time + ms, fn })
    return id
  }

  now(): number {
    return this.time
  }

  clear(timer: unknown): void {
    this.pending.delete(timer as number)
  }
  get count(): number {
    return this.pending.size
  }
  /** Moves time on by `ms`, firing each timer due on the way (and those they set) at its time. */
  advance(ms: number): void {
    const end = this.time + ms
    for (;;) {
      const due = [...this.pending].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0]
      if (due === undefined) break
      this.pending.delete(due[0])
      this.time = Math.max(this.time, due[1].at)
      due[1].fn()
    }
    this.time = end
  }
}

function setup(maxParked?: number) {
  const timers = new FakeTimers()
  const purgatory = new DelayedFetchPurgatory({ timers, maxParked })
  const outcomes: DelayedFetchOutcome[] = []
  const park = (keys: string[], bytesNeeded: number, maxWaitMs = 500) =>
    purgatory.park({ keys, bytesNeeded, maxWaitMs, onComplete: (o) => outcomes.push(o) })
  return { timers, purgatory, outcomes, park }
}

describe('DelayedFetchPurgatory', () => {
  it('completes a parked fetch once enough bytes arrive on its partitions', () => {
    const { purgatory, outcomes, park, timers } = setup()
    const h = park(['a', 'b'], 100)
    purgatory.notify('a', 40)
    expect(outcomes).toEqual([])
    purgatory.notify('c', 500) // another partition does not count
    expect(outcomes).toEqual([])
    purgatory.notify('b', 60)
    expect(outcomes).toEqual(['satisfied'])
    expect(h.done).toBe(true)
    expect(purgatory.size).toBe(0)
    expect(purgatory.watchedPartitionCount).toBe(0)
    // Its deadline still comes up once, finds it done and leaves the timer unarmed.
    timers.advance(500)
    expect(outcomes).toEqual(['satisfied'])
    expect(purgatory.timerArmed).toBe(false)
    expect(timers.count).toBe(0)
  })

  it('expires each fetch at its max wait with one timer for the purgatory, none per fetch or partition', () => {
    const { purgatory, outcomes, park, timers } = setup()
    park(['a', 'b', 'c'], 10, 300)
    park(['a'], 10, 100)
    park(['b'], 10, 200)
    expect(timers.count).toBe(1)
    timers.advance(98)
    expect(outcomes).toEqual([])
    timers.advance(2)
    expect(outcomes).toEqual(['expired'])
    expect(timers.count).toBe(1)
    expect(purgatory.size).toBe(2)
    timers.advance(100)
    expect(outcomes).toEqual(['expired', 'expired'])
    timers.advance(100)
    expect(outcomes).toEqual(['expired', 'expired', 'expired'])
    expect(purgatory.watchedPartitionCount).toBe(0)
    expect(purgatory.timerArmed).toBe(false)
    expect(timers.count).toBe(0)
  })

  it('arms the timer earlier for a fetch with a shorter wait, and never past a live deadline', () => {
    const { outcomes, park, timers, purgatory } = setup()
    park(['a'], 10, 1000)
    timers.advance(100)
    park(['b'], 10, 50) // due at 150, before the first's 1000
    timers.advance(49)
    expect(outcomes).toEqual([])
    timers.advance(1)
    expect(outcomes).toEqual(['expired'])
    timers.advance(849)
    expect(outcomes).toEqual(['expired'])
    timers.advance(1)
    expect(outcomes).toEqual(['expired', 'expired'])
    expect(purgatory.size).toBe(0)
  })

  it('keeps few completed entries: the heap is compacted when they outnumber the live ones', () => {
    const { purgatory, park, timers } = setup()
    park(['slow'], 10, 60_000)
    for (let i = 0; i < 1000; i++) {
      park(['a'], 10)
      purgatory.notify('a', 10)
    }
    expect(purgatory.size).toBe(1)
    expect(purgatory.deadlineEntries).toBeLessThanOrEqual(2 + 64 + 1)
    expect(timers.count).toBe(1)
  })

  it('completes each fetch exactly once, whatever happens afterwards', () => {
    const { purgatory, outcomes, park, timers } = setup()
    const h = park(['a'], 10, 100)
    purgatory.notify('a', 10)
    purgatory.notify('a', 10)
    h.cancel()
    purgatory.wake('a')
    timers.advance(1000)
    purgatory.close()
    expect(outcomes).toEqual(['satisfied'])
  })

  it('wakes every fetch of a partition, and cancels on close', () => {
    const { purgatory, outcomes, park, timers } = setup()
    park(['a'], 10)
    park(['a', 'b'], 10)
    park(['b'], 10)
    purgatory.wake('a')
    expect(outcomes).toEqual(['woken', 'woken'])
    expect(purgatory.watchedPartitionCount).toBe(1) // only 'b', for the third fetch
    park(['c'], 10)
    purgatory.close()
    expect(outcomes).toEqual(['woken', 'woken', 'cancelled', 'cancelled'])
    expect(purgatory.watchedPartitionCount).toBe(0)
    expect(park(['d'], 10).done).toBe(true) // nothing parks after close
    expect(outcomes).toHaveLength(5)
    expect(timers.count).toBe(0)
    expect(purgatory.size).toBe(0)
  })

  it('cancel removes the fetch from every watcher set', () => {
    const { purgatory, outcomes, park } = setup()
    const h = park(['a', 'b'], 10)
    park(['b'], 10)
    h.cancel()
    expect(outcomes).toEqual(['cancelled'])
    expect(purgatory.watchedPartitionCount).toBe(1)
    expect(purgatory.size).toBe(1)
  })

  it('completes new fetches at once when the bound is reached', () => {
    const { purgatory, outcomes, park } = setup(2)
    park(['a'], 10)
    park(['a'], 10)
    const third = park(['a'], 10)
    expect(third.done).toBe(true)
    expect(outcomes).toEqual(['overflow'])
    expect(purgatory.size).toBe(2)
  })

  it('keeps completing the others when a callback throws', () => {
    const errors: unknown[] = []
    const purgatory = new DelayedFetchPurgatory({ timers: new FakeTimers(), onError: (e) => errors.push(e) })
    const seen: string[] = []
    purgatory.park({
      keys: ['a'],
      bytesNeeded: 1,
      maxWaitMs: 10,
      onComplete: () => {
        throw new Error('boom')
      },
    })
    purgatory.park({ keys: ['a'], bytesNeeded: 1, maxWaitMs: 10, onComplete: (o) => seen.push(o) })
    purgatory.notify('a', 1)
    expect(seen).toEqual(['satisfied'])
    expect(errors).toHaveLength(1)
    expect(purgatory.size).toBe(0)
  })

  it('uses real timers by default', async () => {
    const purgatory = new DelayedFetchPurgatory()
    const outcome = await new Promise<DelayedFetchOutcome>((resolve) => {
      purgatory.park({ keys: ['a'], bytesNeeded: 1, maxWaitMs: 5, onComplete: resolve })
    })
    expect(outcome).toBe('expired')
  })
})
