/**
 * The leader's side of a follower fetch (FetchRequest with replica_id >= 0, docs/kafka-facts.md §3.2):
 * one partition of the request, after the fetch handler found the partition and checked that
 * this broker leads it.
 *
 * Checks, in order, each answered with a typed error and no state change:
 *   REPLICA_NOT_AVAILABLE      replica_id is this broker or not in the partition's replica set
 *   STALE_BROKER_EPOCH         replica_epoch is older than the broker epoch the metadata shows
 *   FENCED_LEADER_EPOCH /      current_leader_epoch older / newer than this leader's epoch
 *   UNKNOWN_LEADER_EPOCH       (-1 is not accepted from a follower: its epoch must be known)
 *   diverging_epoch            last_fetched_epoch shows the follower's tail is not our history
 *   OFFSET_OUT_OF_RANGE        fetch_offset outside [logStartOffset, logEndOffset]
 * Then the follower's fetch offset is recorded as its LEO and its log_start_offset as its log
 * start (ISR expansion, HW advance, DeleteRecords completion; only on the
 * first read of a request, not again when a parked long poll is re-read), and records are read up
 * to the log end offset (followers may read past the high watermark; consumers may not).
 */
import { toBigInt, toInt64String, type wire } from '@sluice/protocol'
import type { ReadResult } from '../log/index.js'
import type { Partition } from '../partition.js'
import {
  errorFields,
  NO_ERROR,
  partitionFetchFailure,
  type BrokerContext,
  type FetchOffsets,
} from '../server/context.js'
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
  req: wire.FetchRequest__Output,
  replica: Partition,
  p: wire.PartitionFetchData__Output,
  o: FollowerReadOptions,
): wire.PartitionFetchResponse | Promise<wire.PartitionFetchResponse> {
  const followerId = req.replica_id
  const offsets = (): FetchOffsets => ({
    hw: replica.highWatermark,
    lso: replica.logStartOffset,
    leo: replica.logEndOffset,
  })
  if (followerId === ctx.brokerId || !replica.replicas.includes(followerId)) {
    return partitionFetchFailure(
      p.partition,
      errorFields(
        'REPLICA_NOT_AVAILABLE',
        `broker ${followerId} is not a follower of ${replica.topic}-${replica.partition} (replicas ${JSON.stringify(replica.replicas)})`,
      ),
    )
  }
  const known = ctx.cache.broker(followerId)?.brokerEpoch
  const sent = epochValue(req.replica_epoch)
  const current = known === undefined || known === '' ? undefined : epochValue(known)
  if (sent === undefined || (current !== undefined && sent < current)) {
    return partitionFetchFailure(
      p.partition,
      errorFields(
        'STALE_BROKER_EPOCH',
        `broker epoch ${req.replica_epoch} of broker ${followerId} is older than its current ${known}`,
      ),
    )
  }
  if (p.current_leader_epoch !== replica.leaderEpoch) {
    const code = p.current_leader_epoch < replica.leaderEpoch ? 'FENCED_LEADER_EPOCH' : 'UNKNOWN_LEADER_EPOCH'
    return partitionFetchFailure(
      p.partition,
      errorFields(code, `leader epoch ${p.current_leader_epoch} in the request, ${replica.leaderEpoch} on the leader`),
    )
  }
  const offset = toBigInt(p.fetch_offset)
  const diverging = findDivergence(replica.log, p.last_fetched_epoch, offset)
  if (diverging !== undefined) {
    return {
      ...partitionFetchFailure(p.partition, NO_ERROR, offsets()),
      leader_epoch: replica.leaderEpoch,
      diverging_epoch: { epoch: diverging.epoch, end_offset: toInt64String(diverging.endOffset) },
    }
  }
  const before = offsets()
  if (offset < before.lso || offset > before.leo) {
    return partitionFetchFailure(
      p.partition,
      errorFields(
        'OFFSET_OUT_OF_RANGE',
        `offset ${offset} is outside [${before.lso}, ${before.leo}] of ${replica.topic}-${replica.partition}`,
      ),
      before,
    )
  }
  if (o.recordPosition) replica.recordFollowerFetch(followerId, offset, parseOffset(p.log_start_offset) ?? -1n)
  const answer = (read: ReadResult): wire.PartitionFetchResponse => ({
    ...partitionFetchFailure(p.partition, NO_ERROR, offsets()),
    records: read.records,
    leader_epoch: replica.leaderEpoch,
  })
  const readOptions = { minOneBatch: o.minOneBatch }
  const read = replica.log.readSync(offset, o.maxBytes, readOptions)
  return read !== undefined ? answer(read) : replica.log.read(offset, o.maxBytes, readOptions).then(answer)
}

function parseOffset(text: string): bigint | undefined {
  return /^\d{1,19}$/.test(text) ? BigInt(text) : undefined
}

/**
 * Broker epochs by their text: every partition of every follower fetch checks one, and a broker
 * keeps its epoch for its whole session, so each text is parsed once (bounded: cleared when full).
 */
const epochs = new Map<string, bigint | undefined>()
const EPOCHS_MAX = 1024

function epochValue(text: string): bigint | undefined {
  if (epochs.has(text)) return epochs.get(text)
  const value = /^-?\d{1,19}$/.test(text) ? BigInt(text) : undefined
  if (epochs.size >= EPOCHS_MAX) epochs.clear()
  epochs.set(text, value)
  return value
}
