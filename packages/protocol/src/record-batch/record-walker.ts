/**
 * The one record parser of RecordBatch v2 (header layout in batch-header.ts, record layout in
 * record-encoder.ts). walkRecordBatches hands each record's fields to a caller's RecordSink,
 * which builds whatever object it needs, so a consumer makes exactly one object per record;
 * decodeRecordBatches (record-decoder.ts) is a sink that builds DecodedBatch/DecodedRecord.
 * walkRecordBatches is frameBatchAt (where a batch ends) then walkBatch (its CRC and records),
 * batch after batch; a caller that frames a buffer early and walks it later uses the two halves,
 * so each header is still read once.
 * Invariants:
 * - Batches are read back to back from byte 0. A trailing batch cut short (a fetch response may
 *   end mid-batch, as Kafka's do) is skipped silently; anything else malformed throws a typed
 *   SluiceError: CORRUPT_MESSAGE for a bad CRC, magic or record, INVALID_BATCH for a bad length.
 * - The CRC is checked before any record is parsed (unless verifyCrc is false), and every varint
 *   and length is bounds-checked, so hostile bytes can only produce a SluiceError.
 * - Every record of every complete batch is parsed and checked, including the ones the sink does
 *   not get (below minOffset, or in a batch the sink declined): skipping changes what is
 *   delivered, never what is accepted.
 * - Keys, values and header values are subarray views of the input (or of the decompressed
 *   records section), never copies. Callers who keep them while reusing `buf` must copy.
 * - With LogAppendTime (attribute bit 3) every record's timestamp is the batch maxTimestamp.
 *
 * Hot path (the consumer's per-record cost): a skipped record creates nothing, offsets are
 * computed in numbers and converted once when the base offset allows it, and consecutive records
 * with the same timestamp delta (one producer send() stamps them alike) share one immutable bigint.
 * What is left per delivered record is the sink's object, the offset bigint, the key/value views
 * and the headers array; the views (Buffer subarray) are about half of the decode time.
 *
 * Lazy records (walkBatchLazily, the consumer's path since issue 16): the walk checks every record
 * exactly as above but builds nothing; the sink gets where each record's key starts, and its
 * offset and timestamp as numbers when exact. readRecordKey / readRecordValue / readRecordHeaders
 * decode a field from that position later, when the application first reads it, so a record
 * whose headers (or key, or offset) nobody reads never pays for them. They re-read only the
 * varints before the field, and stay bounds-checked (a SluiceError, never a RangeError).
 */
import { SluiceError } from '../errors.js'
import {
  BATCH_HEADER_BYTES,
  COMPRESSION_CODEC_MASK,
  TIMESTAMP_TYPE_MASK,
  batchProblemError,
  checkBatchContents,
  checkBatchFraming,
  readBatchHeader,
} from './batch-header.js'
import type { BatchHeader } from './batch-header.js'
import { decompressRecords } from './compression.js'
import type { RecordHeader } from './record-types.js'
import { VarintReader } from './varint.js'

/** What walkRecordBatches hands its records to. */
export interface RecordSink {
  /**
   * Called for each complete batch, after its checks and before its records. Return false to
   * receive none of its records (a consumer skipping control batches); they are still checked.
   */
  batch: (header: BatchHeader) => boolean
  /** One record at or above minOffset, in batch order. key/value/header values are views. */
  record: (offset: bigint, timestamp: bigint, key: Buffer | null, value: Buffer | null, headers: RecordHeader[]) => void
}

/**
 * What walkBatchLazily hands its records to: positions, not fields (see the file header). The
 * `data` of every record of one batch is the same buffer: the input, or the batch's decompressed
 * records section.
 */
export interface RecordPositionSink {
  /** As RecordSink.batch: false skips the batch's records (they are still checked). */
  batch: (header: BatchHeader) => boolean
  /**
   * One record at or above minOffset: its key's length varint starts at `keyPos` of `data`.
   * `offset` and `timestamp` are numbers when exact (|v| < 2^53), bigints otherwise.
   */
  record: (data: Buffer, keyPos: number, offset: number | bigint, timestamp: number | bigint) => void
}

export interface WalkOptions {
  /** Default true. */
  verifyCrc?: boolean
  /** Records with a lower offset are parsed and checked but not handed to the sink. */
  minOffset?: bigint
}

/** The smallest possible record: seven one-byte fields. Bounds recordCount before parsing. */
const MIN_RECORD_BYTES = 7
/** Base offsets in ±2^52 leave room for any int32 delta in exact number arithmetic. */
const NUMBER_OFFSET_LIMIT = 2n ** 52n
const INT32_LIMIT = 2n ** 31n
/** A bigint as a number when that is exact (|v| < 2^52 here; the callers add an int32 or less). */
function numberIfExact(v: bigint): number | bigint {
  return v > -NUMBER_OFFSET_LIMIT && v < NUMBER_OFFSET_LIMIT ? Number(v) : v
}

function corrupt(message: string, header: BatchHeader): SluiceError {
  return new SluiceError('CORRUPT_MESSAGE', message, { baseOffset: header.baseOffset.toString() })
}

function readHeaders(reader: VarintReader, header: BatchHeader): RecordHeader[] {
  const count = reader.readVarint()
  if (count === 0) return []
  if (count < 0 || count > reader.end - reader.pos) throw corrupt(`record header count ${count} is invalid`, header)
  const headers: RecordHeader[] = []
  for (let i = 0; i < count; i++) {
    const key = reader.readString('header key')
    headers.push({ key, value: reader.readBytes('header value') })
  }
  return headers
}

/** readHeaders' checks without building anything (a record the sink does not get). */
function skipHeaders(reader: VarintReader, header: BatchHeader): void {
  const count = reader.readVarint()
  if (count === 0) return
  if (count < 0 || count > reader.end - reader.pos) throw corrupt(`record header count ${count} is invalid`, header)
  for (let i = 0; i < count; i++) {
    reader.skipBytes('header key', false)
    reader.skipBytes('header value', true)
  }
}

/**
 * The lowest offsetDelta of `header`'s batch that is at or above minOffset, clamped to the int32
 * range a delta can take (so the comparison per record is on numbers).
 */
function firstDeliveredDelta(header: BatchHeader, minOffset: bigint | undefined): number {
  if (minOffset === undefined) return -Infinity
  const d = minOffset - header.baseOffset
  if (d <= -INT32_LIMIT) return -Infinity
  if (d > INT32_LIMIT) return Infinity
  return Number(d)
}

/** Parses the records section [pos, end) of `data` for the batch `header`; see the file header. */
function walkRecords(
  data: Buffer,
  pos: number,
  end: number,
  header: BatchHeader,
  sink: RecordSink | undefined,
  fromDelta: number,
): void {
  const count = header.recordCount
  if (count < 0 || count > (end - pos) / MIN_RECORD_BYTES) {
    throw corrupt(`recordCount ${count} does not fit in ${end - pos} bytes of records`, header)
  }
  const { baseOffset, baseTimestamp, maxTimestamp } = header
  const logAppendTime = (header.attributes & TIMESTAMP_TYPE_MASK) !== 0
  const numberBase = baseOffset > -NUMBER_OFFSET_LIMIT && baseOffset < NUMBER_OFFSET_LIMIT
  const baseOffsetNumber = Number(baseOffset)
  const baseTimestampNumber =
    baseTimestamp > -NUMBER_OFFSET_LIMIT && baseTimestamp < NUMBER_OFFSET_LIMIT ? Number(baseTimestamp) : NaN
  let lastTsDelta: number | bigint = 0
  let lastTimestamp = baseTimestamp
  const reader = new VarintReader(data, pos, end)
  for (let i = 0; i < count; i++) {
    const length = reader.readVarint()
    const recordEnd = reader.pos + length
    if (length < MIN_RECORD_BYTES - 1 || recordEnd > end) throw corrupt(`record length ${length} is invalid`, header)
    reader.end = recordEnd
    reader.pos++ // attributes: unused (present: length >= 6 was checked)
    const tsDelta = reader.readVarlong()
    const offsetDelta = reader.readVarint()
    let key: Buffer | null = null
    let value: Buffer | null = null
    let headers: RecordHeader[] | undefined
    if (sink !== undefined && offsetDelta >= fromDelta) {
      key = reader.readBytes('key')
      value = reader.readBytes('value')
      headers = readHeaders(reader, header)
    } else {
      reader.skipBytes('key', true)
      reader.skipBytes('value', true)
      skipHeaders(reader, header)
    }
    if (reader.pos !== recordEnd)
      throw corrupt(`record declares ${length} bytes but holds ${length - (recordEnd - reader.pos)}`, header)
    reader.end = end
    if (sink === undefined || headers === undefined) continue // not delivered (headers are read iff delivered)
    let timestamp: bigint
    if (logAppendTime) {
      timestamp = maxTimestamp
    } else if (tsDelta === lastTsDelta) {
      timestamp = lastTimestamp
    } else {
      if (typeof tsDelta === 'bigint' || Number.isNaN(baseTimestampNumber))
        timestamp = BigInt.asIntN(64, baseTimestamp + BigInt(tsDelta))
      else timestamp = BigInt(baseTimestampNumber + tsDelta)
      lastTsDelta = tsDelta
      lastTimestamp = timestamp
    }
    const offset = numberBase ? BigInt(baseOffsetNumber + offsetDelta) : baseOffset + BigInt(offsetDelta)
    sink.record(offset, timestamp, key, value, headers)
  }
  if (reader.pos !== end) throw corrupt(`${end - reader.pos} bytes left over after ${count} records`, header)
}

/**
 * walkRecords for a RecordPositionSink: the same checks on every record (the skip path), and each
 * delivered record's key position, offset and timestamp handed over. A loop of its own so each
 * stays small enough for V8 to inline the varint reads into it.
 */
function walkRecordPositions(
  data: Buffer,
  pos: number,
  end: number,
  header: BatchHeader,
  sink: RecordPositionSink | undefined,
  fromDelta: number,
): void {
  const count = header.recordCount
  if (count < 0 || count > (end - pos) / MIN_RECORD_BYTES) {
    throw corrupt(`recordCount ${count} does not fit in ${end - pos} bytes of records`, header)
  }
  const { baseOffset, baseTimestamp } = header
  const logAppendTime = (header.attributes & TIMESTAMP_TYPE_MASK) !== 0
  const maxTimestamp = numberIfExact(header.maxTimestamp)
  const numberBase = baseOffset > -NUMBER_OFFSET_LIMIT && baseOffset < NUMBER_OFFSET_LIMIT
  const baseOffsetNumber = Number(baseOffset)
  const numberTimestamps = baseTimestamp > -NUMBER_OFFSET_LIMIT && baseTimestamp < NUMBER_OFFSET_LIMIT
  const baseTimestampNumber = Number(baseTimestamp)
  const reader = new VarintReader(data, pos, end)
  for (let i = 0; i < count; i++) {
    const length = reader.readVarint()
    const recordEnd = reader.pos + length
    if (length < MIN_RECORD_BYTES - 1 || recordEnd > end) throw corrupt(`record length ${length} is invalid`, header)
    reader.end = recordEnd
    reader.pos++ // attributes: unused (present: length >= 6 was checked)
    const tsDelta = reader.readVarlong()
    const offsetDelta = reader.readVarint()
    const keyPos = reader.pos
    reader.skipBytes('key', true)
    reader.skipBytes('value', true)
    skipHeaders(reader, header)
    if (reader.pos !== recordEnd)
      throw corrupt(`record declares ${length} bytes but holds ${length - (recordEnd - reader.pos)}`, header)
    reader.end = end
    if (sink === undefined || offsetDelta < fromDelta) continue
    let timestamp: number | bigint
    if (logAppendTime) timestamp = maxTimestamp
    // Both below 2^52 (readVarlong's numbers are), so the sum is exact.
    else if (typeof tsDelta === 'number' && numberTimestamps) timestamp = baseTimestampNumber + tsDelta
    else timestamp = BigInt.asIntN(64, baseTimestamp + BigInt(tsDelta))
    sink.record(data, keyPos, numberBase ? baseOffsetNumber + offsetDelta : baseOffset + BigInt(offsetDelta), timestamp)
  }
  if (reader.pos !== end) throw corrupt(`${end - reader.pos} bytes left over after ${count} records`, header)
}

/**
 * The header of the batch at `position` once its framing is checked (length, magic, all its bytes
 * present): undefined for a truncated tail, a typed SluiceError for a length or magic that cannot
 * be a batch. No CRC: walkBatch checks it. A caller that must know where the batches of a buffer
 * end before walking their records (the consumer, at fetch time) frames them with this once and
 * hands the headers to walkBatch later.
 */
export function frameBatchAt(buf: Buffer, position: number): BatchHeader | undefined {
  const problem = checkBatchFraming(buf, position)
  if (problem?.kind === 'truncated') return undefined
  if (problem !== undefined) throw batchProblemError(problem)
  return readBatchHeader(buf, position)!
}

/**
 * Walks one batch of `buf` whose header frameBatchAt read: checks its CRC and header fields
 * (unless verifyCrc is false), then hands its records to `sink` as walkRecordBatches does.
 */
export function walkBatch(buf: Buffer, header: BatchHeader, sink: RecordSink, options: WalkOptions = {}): void {
  walkOne(buf, header, sink.batch(header) ? sink : undefined, undefined, options)
}

/**
 * walkBatch for a RecordPositionSink: the same checks, but each delivered record is handed over
 * as a position (decode its fields with readRecordKey / readRecordValue / readRecordHeaders).
 */
export function walkBatchLazily(
  buf: Buffer,
  header: BatchHeader,
  sink: RecordPositionSink,
  options: WalkOptions = {},
): void {
  walkOne(buf, header, undefined, sink.batch(header) ? sink : undefined, options)
}

function walkOne(
  buf: Buffer,
  header: BatchHeader,
  sink: RecordSink | undefined,
  lazy: RecordPositionSink | undefined,
  options: WalkOptions,
): void {
  if (options.verifyCrc !== false) {
    const problem = checkBatchContents(buf, header.position, header.sizeBytes)
    if (problem !== undefined) throw batchProblemError(problem)
  }
  const fromDelta = firstDeliveredDelta(header, options.minOffset)
  const start = header.position + BATCH_HEADER_BYTES
  const end = header.position + header.sizeBytes
  const codec = header.attributes & COMPRESSION_CODEC_MASK
  const data = codec === 0 ? buf : decompressRecords(codec, buf.subarray(start, end))
  const from = codec === 0 ? start : 0
  const to = codec === 0 ? end : data.length
  if (lazy !== undefined) walkRecordPositions(data, from, to, header, lazy, fromDelta)
  else walkRecords(data, from, to, header, sink, fromDelta)
}

/**
 * The one reader the field decoders share (single-threaded, and nothing runs between setting it
 * and reading), so decoding a field allocates only the field. The end is the buffer's: the
 * record was checked by the walk, and the reads stay bounds-checked against the buffer.
 */
const fieldReader = new VarintReader(Buffer.alloc(0), 0, 0)

function readerAt(data: Buffer, keyPos: number): VarintReader {
  const r = fieldReader
  r.buf = data
  r.pos = keyPos
  r.end = data.length
  return r
}

/** The key of the record whose key starts at `keyPos` (a RecordPositionSink position): a view. */
export function readRecordKey(data: Buffer, keyPos: number): Buffer | null {
  return readerAt(data, keyPos).readBytes('key')
}

/** The value of the record whose key starts at `keyPos`: a view into `data`. */
export function readRecordValue(data: Buffer, keyPos: number): Buffer | null {
  const r = readerAt(data, keyPos)
  r.skipBytes('key', true)
  return r.readBytes('value')
}

/** The headers of the record whose key starts at `keyPos`; header values are views. */
export function readRecordHeaders(data: Buffer, keyPos: number): RecordHeader[] {
  const r = readerAt(data, keyPos)
  r.skipBytes('key', true)
  r.skipBytes('value', true)
  const count = r.readVarint()
  if (count === 0) return []
  if (count < 0 || count > r.end - r.pos)
    throw new SluiceError('CORRUPT_MESSAGE', `record header count ${count} is invalid`)
  const headers: RecordHeader[] = []
  for (let i = 0; i < count; i++) {
    const key = r.readString('header key')
    headers.push({ key, value: r.readBytes('header value') })
  }
  return headers
}

/**
 * Walks every complete batch in `buf` (a truncated trailing batch is skipped), handing each
 * record to `sink`. Throws CORRUPT_MESSAGE on a bad CRC unless verifyCrc is false, and a typed
 * SluiceError for anything else malformed; records handed over before the throw stay handed.
 */
export function walkRecordBatches(buf: Buffer, sink: RecordSink, options: WalkOptions = {}): void {
  let position = 0
  for (let header = frameBatchAt(buf, 0); header !== undefined; header = frameBatchAt(buf, position)) {
    walkBatch(buf, header, sink, options)
    position += header.sizeBytes
  }
}
