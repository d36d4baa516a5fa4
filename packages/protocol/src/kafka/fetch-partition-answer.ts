/**
 * One partition of a Kafka Fetch answer, read into the shape Sluice's fetchers apply (the gRPC
 * wire type), and the DivergingEpoch rule: written once for the two readers of Kafka Fetch
 * answers (the broker's replica fetcher and the SDK's consumer fetcher) and for the leader that
 * writes the field.
 *
 * DivergingEpoch: Kafka's default pair (-1, -1) means "no divergence". A leader that shares no
 * epoch with the follower's last fetched one also answers epoch -1, so it sends end offset 0
 * then, and a reader tells the two apart by the end offset.
 */
import type * as wire from '../generated/index.js'
import { toInt64String } from '../int64.js'
import type {
  FetchResponseEpochEndOffset,
  FetchResponseEpochEndOffsetInput,
  FetchResponsePartitionData,
} from './messages/index.js'

const NO_RECORDS = Buffer.alloc(0)

/** The leader's DivergingEpoch for a divergence at (epoch, endOffset); epoch -1 = no common epoch. */
export function kafkaDivergingEpoch(epoch: number, endOffset: bigint): FetchResponseEpochEndOffsetInput {
  return epoch < 0 && endOffset < 0n ? { epoch: -1, endOffset: 0n } : { epoch, endOffset }
}

/** A reader's view of DivergingEpoch: undefined when the answer reports none. */
export function divergingEpochRead(d: FetchResponseEpochEndOffset): FetchResponseEpochEndOffset | undefined {
  return d.epoch >= 0 || d.endOffset >= 0n ? d : undefined
}

/** divergingEpochRead in the wire type: null when the answer reports none. */
function wireDivergingEpoch(d: FetchResponseEpochEndOffset): wire.EpochEndOffset__Output | null {
  const read = divergingEpochRead(d)
  return read === undefined ? null : { epoch: read.epoch, end_offset: toInt64String(read.endOffset) }
}

/**
 * A Kafka Fetch partition answer as the wire type. Kafka's answer has no log end offset and no
 * error message: `logEnd` says what stands in for the end ('unknown' = -1, or the high
 * watermark, the end of what a consumer may read); the message is empty.
 */
export function wireFetchPartition(
  p: FetchResponsePartitionData,
  logEnd: 'unknown' | 'high-watermark',
): wire.PartitionFetchResponse__Output {
  const highWatermark = toInt64String(p.highWatermark)
  return {
    partition: p.partitionIndex,
    error_code: p.errorCode,
    error_message: '',
    high_watermark: highWatermark,
    last_stable_offset: toInt64String(p.lastStableOffset),
    log_start_offset: toInt64String(p.logStartOffset),
    log_end_offset: logEnd === 'unknown' ? '-1' : highWatermark,
    records: p.records ?? NO_RECORDS,
    diverging_epoch: wireDivergingEpoch(p.divergingEpoch),
    leader_epoch: p.currentLeader.leaderEpoch,
  }
}
