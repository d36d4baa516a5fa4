import { describe, expect, it } from 'vitest'
import { FollowerTracker } from './follower-tracker.js'

describe('FollowerTracker', () => {
  it('starts ISR members caught up and others not, with unknown log end offsets', () => {
    const t = new FollowerTracker()
    t.reset([1, 2, 3], [1, 2], 1, 1000)
    expect(t.get(1)).toBeUndefined()
    expect(t.get(2)).toMatchObject({ logEndOffset: -1n, lastCaughtUpTimeMs: 1000 })
    expect(t.isCaughtUp(2, 1500, 600)).toBe(true)
    expect(t.isCaughtUp(3, 1500, 600)).toBe(false)
  })

  it("follows Kafka's lastCaughtUpTimeMs rule: caught up to the current LEO, or to the LEO of the previous fetch", () => {
    const t = new FollowerTracker()
    t.reset([1, 2], [1], 1, 0)
    t.update(2, 10n, 10n, 100) // at the leader's LEO: caught up now
    expect(t.get(2)!.lastCaughtUpTimeMs).toBe(100)
    t.update(2, 10n, 15n, 200) // reached the LEO of the previous fetch (10): caught up as of that fetch
    expect(t.get(2)!.lastCaughtUpTimeMs).toBe(100)
    t.update(2, 15n, 30n, 300) // reached 15, the previous fetch's LEO: as of 200
    expect(t.get(2)!.lastCaughtUpTimeMs).toBe(200)
    t.update(2, 20n, 40n, 400) // behind the previous fetch's LEO (30): no progress
    expect(t.get(2)!.lastCaughtUpTimeMs).toBe(200)
    expect(t.get(2)!.logEndOffset).toBe(20n)
    expect(t.isCaughtUp(2, 400, 150)).toBe(false)
    expect(t.update(9, 1n, 1n, 500)).toBeUndefined() // not a replica
  })
})
