/**
 * The leader's side of a follower fetch (a fetch with replicaId >= 0, docs/kafka-facts.md §3.2):
 * one partition of the request, after the fetch handler found the partition and checked that
 * this broker leads it.
 *
 * Checks, in order, each answered with a typed error and no state change:
 *   REPLICA_NOT_AVAILABLE      replicaId is this broker or not in the partition's replica set
 *   STALE_BROKER_EPOCH         replicaEpoch is older than the broker epoch the metadata shows
 *   FENCED_LEADER_EPOCH /      currentLeaderEpoch older / newer than this leader's epoch
 *   UNKNOWN_LEADER_EPOCH       (-1 is not accepted from a follower: its epoch must be known)
 *   divergingEpoch             lastFetchedEpoch shows the follower's tail is not our history
 *   OFFSET_OUT_OF_RANGE        fetchOffset outside [logStartOffset, logEndOffset]
 * Then the follower's fetch offset is recorded as its LEO and its logStartOffset as its log
 * start (ISR expansion, HW advance, DeleteRecords completion; only on the
 * first read of a request, not again when a parked long poll is re-read), and records are read up
 * to the log end offset (followers may read past the high watermark; consumers may not).
 */
import { int64FromText } from '@sluice/protocol'
import type { ReadResult } from '../log/index.js'
import type { Partition } from '../partition.js'
import { errorFields, NO_ERROR, type BrokerContext } from '../server/context.js'
import {
  partitionAnswer,
  type FetchAsk,
  type FetchOffsets,
  type FetchPartitionAnswer,
  type FetchPartitionAsk,
} from '../server/fetch-types.js'
import { findDivergence } from './divergence.js'

/** The purgatory key follower fetches of a partition park on (they wait for appends, not the HW). */
export function followerFetchKey(partitionKey: string): string {
  return `${partitionKey}\u0000replica`
}

export interface FollowerReadOptions {
  readonly maxBytes: number
  readonly minOneBatch: boolean
  /** Record the follower's position (the first read of a request only). */
  readonly recordPosition: boolean
}

/**
 * The partition's answer; a promise only when the records are not at the active segment's tail
 * (PartitionLog.readSync), so a caught-up follower is answered without a promise chain.
 */
export function readForFollower(
  ctx: BrokerContext,
  req: FetchAsk,
  replica: Partition,
  p: FetchPartitionAsk,
  o: FollowerReadOptions,
): FetchPartitionAnswer | Promise<FetchPartitionAnswer> {
  const followerId = req.replicaId
  if (followerId === ctx.brokerId || !replica.replicas.includes(followerId)) {
    return partitionAnswer(
      p.partition,
      errorFields(
        'REPLICA_NOT_AVAILABLE',
        `broker ${followerId} is not a follower of ${replica.topic}-${replica.partition} (replicas ${JSON.stringify(replica.replicas)})`,
      ),
      undefined,
    )
  }
  const known = ctx.cache.broker(followerId)?.brokerEpoch
  const current = known === undefined || known === '' ? undefined : epochValue(known)
  if (current !== undefined && req.replicaEpoch < current) {
    return partitionAnswer(
      p.partition,
      errorFields(
        'STALE_BROKER_EPOCH',
        `broker epoch ${req.replicaEpoch} of broker ${followerId} is older than its current ${known}`,
      ),
      undefined,
    )
  }
  if (p.currentLeaderEpoch !== replica.leaderEpoch) {
    const code = p.currentLeaderEpoch < replica.leaderEpoch ? 'FENCED_LEADER_EPOCH' : 'UNKNOWN_LEADER_EPOCH'
    return partitionAnswer(
      p.partition,
      errorFields(code, `leader epoch ${p.currentLeaderEpoch} in the request, ${replica.leaderEpoch} on the leader`),
      undefined,
    )
  }
  const offset = p.fetchOffset
  const diverging = findDivergence(replica.log, p.lastFetchedEpoch, offset)
  if (diverging !== undefined) {
    return partitionAnswer(p.partition, NO_ERROR, offsetsOf(replica), undefined, replica.leaderEpoch, {
      epoch: diverging.epoch,
      endOffset: diverging.endOffset,
    })
  }
  const before = offsetsOf(replica)
  if (offset < before.lso || offset > before.leo) {
    return partitionAnswer(
      p.partition,
      errorFields(
        'OFFSET_OUT_OF_RANGE',
        `offset ${offset} is outside [${before.lso}, ${before.leo}] of ${replica.topic}-${replica.partition}`,
      ),
      before,
    )
  }
  if (o.recordPosition) replica.recordFollowerFetch(followerId, offset, p.logStartOffset >= 0n ? p.logStartOffset : -1n)
  const readOptions = { minOneBatch: o.minOneBatch }
  const read = replica.log.readSync(offset, o.maxBytes, readOptions)
  if (read !== undefined) return followerAnswer(p.partition, replica, read)
  return replica.log.read(offset, o.maxBytes, readOptions).then((r) => followerAnswer(p.partition, replica, r))
}

/** Records up to the log end, with the offsets after the read (the follower's position may have moved the HW). */
function followerAnswer(partition: number, replica: Partition, read: ReadResult): FetchPartitionAnswer {
  return partitionAnswer(partition, NO_ERROR, offsetsOf(replica), read.records, replica.leaderEpoch)
}

function offsetsOf(replica: Partition): FetchOffsets {
  return { hw: replica.highWatermark, lso: replica.logStartOffset, leo: replica.logEndOffset }
}

/**
 * Broker epochs of the metadata cache by their text: every partition of every follower fetch
 * checks one, and a broker keeps its epoch for its whole session, so each text is parsed once
 * (bounded: cleared when full).
 */
const epochs = new Map<string, bigint | undefined>()
const EPOCHS_MAX = 1024

function epochValue(text: string): bigint | undefined {
  if (epochs.has(text)) return epochs.get(text)
  const value = int64FromText(text)
  if (epochs.size >= EPOCHS_MAX) epochs.clear()
  epochs.set(text, value)
  return value
}
