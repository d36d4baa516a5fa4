import { describe, expect, it } from 'vitest'
import { ManualClock } from './manual-clock.js'

describe('ManualClock', () => {
  it('fires due timers in due order, each with the clock at its due time, and not one ms early', () => {
    const clock = new ManualClock(1_000_000)
    const fired: string[] = []
    clock.setTimeout(() => fired.push(`b@${clock.monotonicMs()}`), 20)
    clock.setTimeout(() => fired.push(`a@${clock.monotonicMs()}`), 10)
    clock.setTimeout(() => fired.push(`c@${clock.monotonicMs()}`), 10)
    clock.advance(9)
    expect(fired).toEqual([])
    clock.advance(1)
    expect(fired).toEqual(['a@10', 'c@10'])
    clock.advance(100)
    expect(fired).toEqual(['a@10', 'c@10', 'b@20'])
    expect(clock.monotonicMs()).toBe(110)
    expect(clock.nowMs()).toBe(1_000_110)
    expect(clock.pendingTimers).toBe(0)
  })

  it('repeats an interval until it is cancelled, and fires timers set by a firing timer within the same advance', () => {
    const clock = new ManualClock()
    const ticks: number[] = []
    const interval = clock.setInterval(() => {
      ticks.push(clock.monotonicMs())
      if (ticks.length === 3) interval.cancel()
    }, 5)
    let chained = -1
    clock.setTimeout(() => {
      clock.setTimeout(() => {
        chained = clock.monotonicMs()
      }, 4)
    }, 3)
    clock.advance(100)
    expect(ticks).toEqual([5, 10, 15])
    expect(chained).toBe(7)
    expect(clock.pendingTimers).toBe(0)
  })

  it('sleeps until advanced, and an abort cancels the sleep with the signal reason', async () => {
    const clock = new ManualClock()
    let woke = false
    const sleeping = clock.sleep(50).then(() => {
      woke = true
    })
    clock.advance(49)
    await Promise.resolve()
    expect(woke).toBe(false)
    clock.advance(1)
    await sleeping
    expect(woke).toBe(true)
    const ac = new AbortController()
    const aborted = clock.sleep(50, ac.signal)
    ac.abort(new Error('stop'))
    await expect(aborted).rejects.toThrow('stop')
    expect(clock.pendingTimers).toBe(0)
  })
})
