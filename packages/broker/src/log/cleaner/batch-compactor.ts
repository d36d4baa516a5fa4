/**
 * Compaction of one stored batch (docs/kafka-facts.md §8.2): the only place the broker parses records.
 * A record below `mapEnd` (the end of the range the offset map covers) is dropped when the map
 * holds a later offset for its key, or when it is a tombstone (key, null value) whose batch's
 * delete horizon has passed; records at or after `mapEnd` are never touched (their key's earlier
 * records may not be deduplicated yet). Everything kept stays with its offset, key, value,
 * headers and timestamp. Rules:
 *   - control batches and batches that lose nothing are copied byte for byte;
 *   - records without a key are kept (they cannot be compacted);
 *   - a batch that keeps a tombstone and has no delete horizon yet gets one: now +
 *     delete.retention.ms in baseTimestamp with attribute bit 6 (KIP-534), so the tombstone
 *     survives at least that long after the cleaning that first saw it;
 *   - the kept records are re-encoded into ONE batch with the protocol codec, keeping the batch's
 *     base offset, base sequence, compression, producer id and epoch, transactional and
 *     timestamp-type bits and leader epoch, and each record's original offset delta (RecordBatch
 *     v2 allows gaps between deltas, as Kafka's cleaner writes them): batch boundaries, offsets
 *     and sequences (baseSequence + offset delta) never change;
 *   - the rebuilt batch ends at its last kept record, except for the producer's last batch,
 *     which keeps its original lastOffsetDelta so that the producer's last offset and sequence
 *     stay in the log (producer state rebuilt from the log stays right). A batch that loses every
 *     record goes, unless it is its producer's last: then a header-only batch (no records) keeps
 *     that state (Kafka keeps such empty batches too).
 */
import {
  BATCH_HEADER_BYTES,
  COMPRESSION_CODEC_MASK,
  CONTROL_MASK,
  crc32c,
  CURRENT_MAGIC,
  decodeRecordBatches,
  DELETE_HORIZON_MASK,
  encodeRecordBatch,
  LOG_OVERHEAD_BYTES,
  OFF_ATTRIBUTES,
  OFF_BASE_OFFSET,
  OFF_BASE_SEQUENCE,
  OFF_BASE_TIMESTAMP,
  OFF_BATCH_LENGTH,
  OFF_CRC,
  OFF_LAST_OFFSET_DELTA,
  OFF_MAGIC,
  OFF_MAX_TIMESTAMP,
  OFF_PARTITION_LEADER_EPOCH,
  OFF_PRODUCER_EPOCH,
  OFF_PRODUCER_ID,
  OFF_RECORD_COUNT,
  readBatchHeader,
  TIMESTAMP_TYPE_MASK,
  TRANSACTIONAL_MASK,
  type BatchHeader,
  type CompressionType,
  type DecodedRecord,
} from '@sluice/protocol'
import { OffsetMap } from './offset-map.js'

const CODECS: readonly CompressionType[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd']
const SEQUENCE_MODULUS = 2 ** 31

export interface CompactionContext {
  map: OffsetMap
  /** Offsets >= mapEnd are outside the map's range: kept as they are. */
  mapEnd: bigint
  now: number
  deleteRetentionMs: number
  /** Whether the batch at `baseOffset` is the last one of producer `producerId` in the cleaned log. */
  isLastBatchOfProducer(producerId: bigint, baseOffset: bigint): boolean
}

export interface CompactedBatch {
  /** Batches to write in place of the input (the input itself when unchanged). */
  out: Buffer[]
  changed: boolean
  recordsDropped: number
  /** Delete horizon of kept tombstones (ms), if any. */
  tombstoneHorizon: number | undefined
}

export function compactBatch(batch: Buffer, ctx: CompactionContext): CompactedBatch {
  const h = readBatchHeader(batch, 0)!
  if ((h.attributes & CONTROL_MASK) !== 0)
    return { out: [batch], changed: false, recordsDropped: 0, tombstoneHorizon: undefined }
  const records = decodeRecordBatches(batch)[0]?.records ?? []
  if (records.length === 0) {
    // An empty batch left by an earlier cleaning goes once a later batch carries its producer's state.
    const superseded = h.producerId >= 0n && !ctx.isLastBatchOfProducer(h.producerId, h.baseOffset)
    return { out: superseded ? [] : [batch], changed: superseded, recordsDropped: 0, tombstoneHorizon: undefined }
  }
  const horizonSet = (h.attributes & DELETE_HORIZON_MASK) !== 0
  const tombstonesExpired = horizonSet && BigInt(ctx.now) >= h.baseTimestamp
  const kept: DecodedRecord[] = []
  let keptTombstone = false
  for (const r of records) {
    if (r.key === null || r.offset >= ctx.mapEnd) {
      kept.push(r)
      continue
    }
    const latest = ctx.map.get(OffsetMap.hashKey(r.key))
    if (latest !== undefined && latest > r.offset) continue
    if (r.value === null) {
      if (tombstonesExpired) continue
      keptTombstone = true
    }
    kept.push(r)
  }
  const needsHorizon = keptTombstone && !horizonSet
  const horizon = horizonSet ? h.baseTimestamp : needsHorizon ? BigInt(ctx.now + ctx.deleteRetentionMs) : undefined
  const tombstoneHorizon = keptTombstone && horizon !== undefined ? Number(horizon) : undefined
  if (kept.length === records.length && !needsHorizon)
    return { out: [batch], changed: false, recordsDropped: 0, tombstoneHorizon }
  const producerEnd = h.producerId >= 0n && ctx.isLastBatchOfProducer(h.producerId, h.baseOffset)
  const out =
    kept.length > 0
      ? [encodeKept(kept, h, horizon, producerEnd)]
      : producerEnd
        ? [emptyBatch(h, h.baseOffset, h.baseOffset + BigInt(h.lastOffsetDelta))]
        : []
  return { out, changed: true, recordsDropped: records.length - kept.length, tombstoneHorizon }
}

/** The producer sequence of the record at `offset` in batch `h` (-1 when not idempotent); wraps as Kafka's does. */
function sequenceAt(h: BatchHeader, offset: bigint): number {
  if (h.baseSequence < 0) return -1
  return (h.baseSequence + Number(offset - h.baseOffset)) % SEQUENCE_MODULUS
}

/** The kept records of batch `h` as one batch with the same base offset and their original offset deltas. */
function encodeKept(
  kept: readonly DecodedRecord[],
  h: BatchHeader,
  horizon: bigint | undefined,
  keepLastOffsetDelta: boolean,
): Buffer {
  const buf = encodeRecordBatch(
    kept.map((r) => ({ key: r.key, value: r.value, headers: r.headers, timestamp: r.timestamp })),
    {
      compression: CODECS[h.attributes & COMPRESSION_CODEC_MASK] ?? 'none',
      baseOffset: h.baseOffset,
      offsetDeltas: kept.map((r) => Number(r.offset - h.baseOffset)),
      lastOffsetDelta: keepLastOffsetDelta ? h.lastOffsetDelta : undefined,
      partitionLeaderEpoch: h.partitionLeaderEpoch,
      baseTimestamp: horizon ?? kept[0]!.timestamp,
      producerId: h.producerId,
      producerEpoch: h.producerEpoch,
      baseSequence: h.baseSequence,
      isTransactional: (h.attributes & TRANSACTIONAL_MASK) !== 0,
      timestampType: (h.attributes & TIMESTAMP_TYPE_MASK) !== 0 ? 'LogAppendTime' : 'CreateTime',
    },
  )
  if (horizon !== undefined) {
    buf.writeInt16BE(buf.readInt16BE(OFF_ATTRIBUTES) | DELETE_HORIZON_MASK, OFF_ATTRIBUTES)
    buf.writeUInt32BE(crc32c(buf.subarray(OFF_ATTRIBUTES)), OFF_CRC)
  }
  return buf
}

/** A batch with no records covering offsets [from, to] of producer h.producerId (uncompressed: there is nothing to compress). */
export function emptyBatch(h: BatchHeader, from: bigint, to: bigint): Buffer {
  const buf = Buffer.alloc(BATCH_HEADER_BYTES)
  buf.writeBigInt64BE(from, OFF_BASE_OFFSET)
  buf.writeInt32BE(BATCH_HEADER_BYTES - LOG_OVERHEAD_BYTES, OFF_BATCH_LENGTH)
  buf.writeInt32BE(h.partitionLeaderEpoch, OFF_PARTITION_LEADER_EPOCH)
  buf.writeInt8(CURRENT_MAGIC, OFF_MAGIC)
  buf.writeInt16BE(h.attributes & ~COMPRESSION_CODEC_MASK & ~DELETE_HORIZON_MASK, OFF_ATTRIBUTES)
  buf.writeInt32BE(Number(to - from), OFF_LAST_OFFSET_DELTA)
  buf.writeBigInt64BE(h.maxTimestamp, OFF_BASE_TIMESTAMP)
  buf.writeBigInt64BE(h.maxTimestamp, OFF_MAX_TIMESTAMP)
  buf.writeBigInt64BE(h.producerId, OFF_PRODUCER_ID)
  buf.writeInt16BE(h.producerEpoch, OFF_PRODUCER_EPOCH)
  buf.writeInt32BE(sequenceAt(h, from), OFF_BASE_SEQUENCE)
  buf.writeInt32BE(0, OFF_RECORD_COUNT)
  buf.writeUInt32BE(crc32c(buf.subarray(OFF_ATTRIBUTES)), OFF_CRC)
  return buf
}
