import { describe, expect, it } from 'vitest'
import { ManualClock } from '@sluice/protocol'
import { PreferredLeaderBalancer, type PreferredLeaderHost } from './preferred-leader-balancer.js'

/** A controller with no topics that counts the passes it is asked to run. */
function fakeController(): { ctl: PreferredLeaderHost<unknown>; passes: () => number } {
  let n = 0
  const ctl: PreferredLeaderHost<unknown> = {
    serial: async <T>(job: () => Promise<T>): Promise<T> => {
      n++
      return await job()
    },
    view: { topics: new Map() },
    log: { info: () => {}, warn: () => {} },
    electionContext: () => {
      throw new Error('no topics: never asked')
    },
    partitionChange: () => undefined,
    commit: async () => {},
  }
  return { ctl, passes: () => n }
}

describe('PreferredLeaderBalancer', () => {
  it('runs its pass exactly the delay after the preferred replica re-entered the ISR, not 1 ms before, one timer for several partitions', () => {
    const clock = new ManualClock()
    const { ctl, passes } = fakeController()
    const balancer = new PreferredLeaderBalancer(ctl, 2000, clock)
    balancer.onIsrExpanded([1, 2, 3], 2, [3]) // not the preferred replica: nothing due
    expect(clock.pendingTimers).toBe(0)
    balancer.onIsrExpanded([1, 2, 3], 2, [1])
    clock.advance(1000)
    balancer.onIsrExpanded([4, 5], 5, [4]) // covered by the pending pass
    expect(clock.pendingTimers).toBe(1)
    clock.advance(999)
    expect(passes()).toBe(0)
    clock.advance(1)
    expect(passes()).toBe(1)
    expect(clock.pendingTimers).toBe(0)
    balancer.onIsrExpanded([1, 2, 3], 2, [1])
    balancer.stop()
    clock.advance(2000)
    expect(passes()).toBe(1)
  })
})
