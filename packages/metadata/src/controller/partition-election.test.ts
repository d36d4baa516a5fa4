import { describe, expect, it } from 'vitest'
import type { PartitionStateRecord } from './layout.js'
import {
  afterBrokersLost,
  afterControlledShutdown,
  electOffline,
  electPreferred,
  electUnclean,
  initialState,
  type ElectionContext,
} from './partition-election.js'

const ctx = (live: number[], unclean = false): ElectionContext => ({
  isLive: (b) => live.includes(b),
  controllerEpoch: 7,
  unclean,
})
const st = (leader: number, isr: number[], leaderEpoch = 3, partitionEpoch = 5): PartitionStateRecord => ({
  leader,
  isr,
  leaderEpoch,
  partitionEpoch,
  controllerEpoch: 1,
})

describe('partition election', () => {
  it('initial state: first live replica leads, live replicas in sync', () => {
    expect(initialState([3, 1, 2], ctx([1, 2, 3]))).toEqual({
      leader: 3,
      leaderEpoch: 0,
      isr: [3, 1, 2],
      controllerEpoch: 7,
      partitionEpoch: 0,
    })
    expect(initialState([3, 1, 2], ctx([1, 2]))).toMatchObject({ leader: 1, isr: [1, 2] })
  })

  it('leader loss elects the first live ISR member in assignment order', () => {
    const s = afterBrokersLost([1, 2, 3], st(1, [3, 1, 2]), new Set([1]), ctx([2, 3]))
    expect(s).toEqual({ leader: 2, leaderEpoch: 4, isr: [3, 2], controllerEpoch: 7, partitionEpoch: 6 })
  })

  it('controlled shutdown moves leadership to the next eligible ISR member and leaves the ISR, never going offline', () => {
    // The shutting-down broker 1 is not eligible (the controller's ctx excludes it).
    expect(afterControlledShutdown([1, 2, 3], st(1, [1, 2, 3]), 1, ctx([2, 3]))).toEqual({
      leader: 2,
      leaderEpoch: 4,
      isr: [2, 3],
      controllerEpoch: 7,
      partitionEpoch: 6,
    })
    expect(afterControlledShutdown([1, 2, 3], st(2, [1, 2, 3]), 1, ctx([2, 3]))).toEqual({
      leader: 2,
      leaderEpoch: 3,
      isr: [2, 3],
      controllerEpoch: 7,
      partitionEpoch: 6,
    })
    // Sole in-sync replica (RF 1, or a shrunk ISR): nothing moves; it goes offline only when it is gone.
    expect(afterControlledShutdown([1], st(1, [1]), 1, ctx([]))).toBeUndefined()
    expect(afterControlledShutdown([1, 2], st(1, [1]), 1, ctx([2]))).toBeUndefined()
    expect(afterControlledShutdown([1, 2], st(2, [2]), 1, ctx([2]))).toBeUndefined()
  })

  it('follower loss shrinks the ISR without a leader-epoch bump', () => {
    expect(afterBrokersLost([1, 2, 3], st(1, [1, 2, 3]), new Set([3]), ctx([1, 2]))).toEqual({
      leader: 1,
      leaderEpoch: 3,
      isr: [1, 2],
      controllerEpoch: 7,
      partitionEpoch: 6,
    })
    expect(afterBrokersLost([1, 2, 3], st(1, [1, 2]), new Set([3]), ctx([1, 2]))).toBeUndefined()
  })

  it('losing the last ISR member leaves the partition offline and keeps that member in the ISR', () => {
    expect(afterBrokersLost([1, 2], st(1, [1]), new Set([1]), ctx([2]))).toEqual({
      leader: -1,
      leaderEpoch: 4,
      isr: [1],
      controllerEpoch: 7,
      partitionEpoch: 6,
    })
    // Both at once: the ISR keeps one of them.
    expect(afterBrokersLost([1, 2, 3], st(1, [1, 2]), new Set([1, 2]), ctx([3]))).toMatchObject({
      leader: -1,
      isr: [2],
    })
  })

  it('unclean election lets an out-of-sync live replica lead', () => {
    expect(afterBrokersLost([1, 2], st(1, [1]), new Set([1]), ctx([2], true))).toMatchObject({
      leader: 2,
      isr: [2],
      leaderEpoch: 4,
    })
    expect(electOffline([1, 2], st(-1, [1]), ctx([2], true))).toMatchObject({ leader: 2, isr: [2] })
    expect(electOffline([1, 2], st(-1, [1]), ctx([2]))).toBeUndefined()
  })

  it('a returning ISR member leads an offline partition', () => {
    expect(electOffline([2, 1], st(-1, [1]), ctx([1, 2]))).toEqual({
      leader: 1,
      leaderEpoch: 4,
      isr: [1],
      controllerEpoch: 7,
      partitionEpoch: 6,
    })
    expect(electOffline([2, 1], st(2, [1, 2]), ctx([1, 2]))).toBeUndefined()
  })

  it('preferred election', () => {
    expect(electPreferred([1, 2], st(2, [1, 2]), ctx([1, 2]))).toMatchObject({
      ok: true,
      state: { leader: 1, leaderEpoch: 4 },
    })
    expect(electPreferred([1, 2], st(1, [1, 2]), ctx([1, 2]))).toMatchObject({
      ok: false,
      error: 'ELECTION_NOT_NEEDED',
    })
    expect(electPreferred([1, 2], st(2, [2]), ctx([1, 2]))).toMatchObject({
      ok: false,
      error: 'PREFERRED_LEADER_NOT_AVAILABLE',
    })
    expect(electPreferred([1, 2], st(2, [1, 2]), ctx([2]))).toMatchObject({
      ok: false,
      error: 'PREFERRED_LEADER_NOT_AVAILABLE',
    })
  })

  it('unclean election on request', () => {
    expect(electUnclean([1, 2], st(1, [1]), ctx([1, 2]))).toMatchObject({ ok: false, error: 'ELECTION_NOT_NEEDED' })
    expect(electUnclean([1, 2], st(-1, [1]), ctx([2]))).toMatchObject({ ok: true, state: { leader: 2, isr: [2] } })
    expect(electUnclean([1, 2], st(-1, [1]), ctx([]))).toMatchObject({
      ok: false,
      error: 'ELIGIBLE_LEADERS_NOT_AVAILABLE',
    })
  })
})
