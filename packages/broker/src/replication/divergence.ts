/**
 * Log divergence between a follower and its leader, detected inside the Fetch RPC (KIP-595
 * style, with KIP-101/KIP-279 rules; docs/kafka-facts.md §3.6). Pure functions over a replica's
 * leader-epoch cache.
 *
 * The follower sends `last_fetched_epoch` (the epoch of the last batch it holds) with its fetch
 * offset. The leader looks up the largest epoch <= that it knows and where that epoch ends; if the
 * epoch is smaller or ends before the fetch offset, the follower's tail is not the leader's
 * history, and the leader answers `diverging_epoch {epoch, end_offset}` instead of records. The
 * follower then truncates to min(end_offset, its own end offset for that epoch) when it knows that
 * epoch, or to the end of its largest smaller epoch when it does not, and fetches again: the loop
 * ends when the leader finds no divergence. Truncation never uses the high watermark except as
 * Kafka's fallback when the leader cannot answer at all.
 */
import type { EpochEntry } from '../log/index.js'

export interface EpochEndOffset {
  readonly epoch: number
  readonly endOffset: bigint
}

export interface EpochLookup {
  endOffsetForEpoch(epoch: number): EpochEndOffset
}

/**
 * The epoch of the last batch a log holds: the latest epoch-cache entry that starts below the
 * log end offset (an entry at the log end offset is an epoch this replica started as leader but
 * wrote nothing in; other replicas may never have heard of it). -1 when there is none.
 */
export function lastFetchedEpoch(entries: readonly EpochEntry[], logEndOffset: bigint): number {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]!
    if (e.startOffset < logEndOffset) return e.epoch
  }
  return -1
}

/** Leader side: the diverging epoch to answer, or undefined when the follower's log is a prefix of ours. */
export function findDivergence(
  leader: EpochLookup,
  followerLastEpoch: number,
  fetchOffset: bigint,
): EpochEndOffset | undefined {
  if (followerLastEpoch < 0) return undefined
  const found = leader.endOffsetForEpoch(followerLastEpoch)
  if (found.epoch < followerLastEpoch || found.endOffset < fetchOffset) return found
  return undefined
}

export interface TruncationPlan {
  /** Truncate the log to this offset (no-op when >= the log end offset). */
  readonly offset: bigint
  /** False when the follower did not know the leader's epoch: fetch again to find the exact point. */
  readonly complete: boolean
}

/**
 * Follower side (Kafka's AbstractFetcherThread.getOffsetTruncationState): where to truncate after
 * the leader answered `diverging`.
 */
export function truncationFor(
  follower: EpochLookup & { logEndOffset: bigint; highWatermark: bigint },
  diverging: EpochEndOffset,
): TruncationPlan {
  const leo = follower.logEndOffset
  const min = (...xs: bigint[]): bigint => xs.reduce((a, b) => (b < a ? b : a))
  if (diverging.epoch < 0 || diverging.endOffset < 0n) {
    // The leader knows no epoch <= ours: Kafka falls back to the high watermark.
    return { offset: min(follower.highWatermark, leo), complete: true }
  }
  const mine = follower.endOffsetForEpoch(diverging.epoch)
  if (mine.epoch < 0 || mine.endOffset < 0n) return { offset: min(follower.highWatermark, leo), complete: true }
  if (mine.epoch !== diverging.epoch) return { offset: min(mine.endOffset, leo), complete: false }
  return { offset: min(diverging.endOffset, mine.endOffset, leo), complete: true }
}
