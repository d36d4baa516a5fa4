/**
 * Decodes RecordBatch v2 buffers (header layout in batch-header.ts, record layout in
 * record-encoder.ts) into records. Invariants:
 * - Batches are read back to back from byte 0. A trailing batch cut short (a fetch response may
 *   end mid-batch, as Kafka's do) is skipped silently; anything else malformed throws a typed
 *   SluiceError: CORRUPT_MESSAGE for a bad CRC, magic or record, INVALID_BATCH for a bad length.
 * - The CRC is checked before any record is parsed (unless verifyCrc is false), and every varint
 *   and length is bounds-checked, so hostile bytes can only produce a SluiceError.
 * - Keys, values and header values are subarray views of the input (or of the decompressed
 *   records section), never copies. Callers who keep them while reusing `buf` must copy.
 * - With LogAppendTime (attribute bit 3) every record's timestamp is the batch maxTimestamp.
 */
import { SluiceError } from '../errors.js';
import { BATCH_HEADER_BYTES, COMPRESSION_CODEC_MASK, CURRENT_MAGIC, LOG_OVERHEAD_BYTES, OFF_BATCH_LENGTH, OFF_MAGIC, TIMESTAMP_TYPE_MASK, batchProblemError, checkBatchAt, readBatchHeader, } from './batch-header.js';
import { decompressRecords } from './compression.js';
import { VarintReader } from './varint.js';
/** The smallest possible record: seven one-byte fields. Bounds recordCount before allocating. */
const MIN_RECORD_BYTES = 7;
/** The same checks as checkBatchAt, minus the CRC (for verifyCrc: false). */
function checkWithoutCrc(buf, position) {
    const remaining = buf.length - position;
    if (remaining < BATCH_HEADER_BYTES)
        return { kind: 'truncated', message: 'short batch header' };
    const batchLength = buf.readInt32BE(position + OFF_BATCH_LENGTH);
    if (batchLength < BATCH_HEADER_BYTES - LOG_OVERHEAD_BYTES) {
        return { kind: 'bad-length', message: `batchLength ${batchLength} is smaller than a header` };
    }
    const magic = buf.readInt8(position + OFF_MAGIC);
    if (magic !== CURRENT_MAGIC)
        return { kind: 'bad-magic', message: `magic ${magic}, expected ${CURRENT_MAGIC}` };
    if (remaining < LOG_OVERHEAD_BYTES + batchLength)
        return { kind: 'truncated', message: 'short batch' };
    return undefined;
}
function corrupt(message, header) {
    return new SluiceError('CORRUPT_MESSAGE', message, { baseOffset: header.baseOffset.toString() });
}
function readHeaders(reader, header) {
    const count = reader.readVarint();
    if (count === 0)
        return [];
    if (count < 0 || count > reader.end - reader.pos)
        throw corrupt(`record header count ${count} is invalid`, header);
    const headers = [];
    for (let i = 0; i < count; i++) {
        const key = reader.readString('header key');
        headers.push({ key, value: reader.readBytes('header value') });
    }
    return headers;
}
/** Parses the records section [pos, end) of `data` for the batch described by `header`. */
function readRecords(data, pos, end, header) {
    const count = header.recordCount;
    if (count < 0 || count > (end - pos) / MIN_RECORD_BYTES) {
        throw corrupt(`recordCount ${count} does not fit in ${end - pos} bytes of records`, header);
    }
    const { baseOffset, baseTimestamp, maxTimestamp } = header;
    const logAppendTime = (header.attributes & TIMESTAMP_TYPE_MASK) !== 0;
    const records = new Array(count);
    const reader = new VarintReader(data, pos, end);
    for (let i = 0; i < count; i++) {
        const length = reader.readVarint();
        const recordEnd = reader.pos + length;
        if (length < MIN_RECORD_BYTES - 1 || recordEnd > end)
            throw corrupt(`record length ${length} is invalid`, header);
        reader.end = recordEnd;
        reader.readInt8(); // attributes: unused
        const tsDelta = reader.readVarlong();
        const offsetDelta = reader.readVarint();
        const key = reader.readBytes('key');
        const value = reader.readBytes('value');
        const headers = readHeaders(reader, header);
        if (reader.pos !== recordEnd)
            throw corrupt(`record declares ${length} bytes but holds ${length - (recordEnd - reader.pos)}`, header);
        reader.end = end;
        let timestamp;
        if (logAppendTime)
            timestamp = maxTimestamp;
        else if (typeof tsDelta === 'bigint')
            timestamp = BigInt.asIntN(64, baseTimestamp + tsDelta);
        else
            timestamp = tsDelta === 0 ? baseTimestamp : baseTimestamp + BigInt(tsDelta);
        records[i] = { offset: baseOffset + BigInt(offsetDelta), timestamp, key, value, headers };
    }
    if (reader.pos !== end)
        throw corrupt(`${end - reader.pos} bytes left over after ${count} records`, header);
    return records;
}
/** Decodes the records of the (already checked) batch whose header is `header`. */
function decodeBatch(buf, header) {
    const start = header.position + BATCH_HEADER_BYTES;
    const end = header.position + header.sizeBytes;
    const codec = header.attributes & COMPRESSION_CODEC_MASK;
    if (codec === 0)
        return readRecords(buf, start, end, header);
    const plain = decompressRecords(codec, buf.subarray(start, end));
    return readRecords(plain, 0, plain.length, header);
}
/**
 * Decodes every complete batch in `buf`; a truncated trailing batch is skipped. Throws
 * CORRUPT_MESSAGE on a bad CRC unless verifyCrc is false.
 */
export function decodeRecordBatches(buf, options = {}) {
    const verifyCrc = options.verifyCrc !== false;
    const batches = [];
    let position = 0;
    while (position < buf.length) {
        const problem = verifyCrc ? checkBatchAt(buf, position) : checkWithoutCrc(buf, position);
        if (problem?.kind === 'truncated')
            break;
        if (problem !== undefined)
            throw batchProblemError(problem);
        const header = readBatchHeader(buf, position);
        batches.push({ header, records: decodeBatch(buf, header) });
        position += header.sizeBytes;
    }
    return batches;
}
//# sourceMappingURL=record-decoder.js.map