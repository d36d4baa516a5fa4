import { describe, expect, it } from 'vitest'
import { findDivergence, lastFetchedEpoch, truncationFor, type EpochLookup } from './divergence.js'

/** A replica's epoch cache as Kafka's LeaderEpochFileCache answers endOffsetFor (KIP-279). */
function cache(
  entries: Array<[number, bigint]>,
  logEndOffset: bigint,
  highWatermark = 0n,
): EpochLookup & { logEndOffset: bigint; highWatermark: bigint } {
  return {
    logEndOffset,
    highWatermark,
    endOffsetForEpoch(requested) {
      const latest = entries.at(-1)
      if (latest?.[0] === requested) return { epoch: requested, endOffset: logEndOffset }
      const higher = entries.find(([e]) => e > requested)
      if (higher === undefined) return { epoch: -1, endOffset: -1n }
      const floor = entries.filter(([e]) => e <= requested).at(-1)
      return { epoch: floor?.[0] ?? requested, endOffset: higher[1] }
    },
  }
}

describe('divergence', () => {
  it('last fetched epoch skips an epoch stamped at the log end with no data', () => {
    expect(
      lastFetchedEpoch(
        [
          { epoch: 0, startOffset: 0n },
          { epoch: 3, startOffset: 5n },
        ],
        5n,
      ),
    ).toBe(0)
    expect(
      lastFetchedEpoch(
        [
          { epoch: 0, startOffset: 0n },
          { epoch: 3, startOffset: 5n },
        ],
        6n,
      ),
    ).toBe(3)
    expect(lastFetchedEpoch([], 0n)).toBe(-1)
  })

  it('the leader reports no divergence for a prefix of its log', () => {
    const leader = cache(
      [
        [0, 0n],
        [2, 4n],
      ],
      9n,
    )
    expect(findDivergence(leader, -1, 0n)).toBeUndefined()
    expect(findDivergence(leader, 0, 4n)).toBeUndefined()
    expect(findDivergence(leader, 2, 9n)).toBeUndefined()
  })

  it('KIP-101 case: the deposed leader has an uncommitted tail in an epoch the new leader ended earlier', () => {
    // A: m1 m2 m3 in epoch 0; B only m1, then leads epoch 1 from offset 1.
    const leader = cache(
      [
        [0, 0n],
        [1, 1n],
      ],
      3n,
    )
    const follower = cache([[0, 0n]], 3n, 1n)
    const d = findDivergence(leader, 0, 3n)
    expect(d).toEqual({ epoch: 0, endOffset: 1n })
    expect(truncationFor(follower, d!)).toEqual({ offset: 1n, complete: true })
  })

  it('KIP-279 case: the follower holds an epoch the leader never saw and truncates in two rounds', () => {
    // Leader knows epochs 0 and 2; the follower wrote in epoch 1 (a short-lived leadership).
    const leader = cache(
      [
        [0, 0n],
        [2, 5n],
      ],
      8n,
    )
    const follower = cache(
      [
        [0, 0n],
        [1, 4n],
      ],
      7n,
    )
    const first = findDivergence(leader, 1, 7n)!
    expect(first).toEqual({ epoch: 0, endOffset: 5n })
    // The follower's epoch 0 ends at 4, where its epoch 1 starts: truncate there; epoch 0 matches, done.
    expect(truncationFor(follower, first)).toEqual({ offset: 4n, complete: true })
    // Next round: last fetched epoch 0 at offset 4 is a prefix of the leader's log.
    expect(findDivergence(leader, 0, 4n)).toBeUndefined()
  })

  it('a follower that does not know the answered epoch truncates to its largest smaller epoch and asks again', () => {
    const follower = cache(
      [
        [0, 0n],
        [3, 6n],
      ],
      9n,
    )
    expect(truncationFor(follower, { epoch: 2, endOffset: 7n })).toEqual({ offset: 6n, complete: false })
  })

  it('falls back to the high watermark when the leader knows no epoch', () => {
    expect(truncationFor(cache([[4, 0n]], 9n, 3n), { epoch: -1, endOffset: -1n })).toEqual({
      offset: 3n,
      complete: true,
    })
  })
})
