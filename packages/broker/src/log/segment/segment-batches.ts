/**
 * Sequential readers over a closed segment for the cleaner: whole batches in 1 MiB reads
 * (a batch larger than that is read on its own), or batch headers only. Both stop at the
 * segment's published size; a length that cannot be a batch is a KAFKA_STORAGE_ERROR (the data
 * passed its CRC when it was appended or recovered, so the file changed under us).
 */
import {
  readInt32BE,
  BATCH_HEADER_BYTES,
  LOG_OVERHEAD_BYTES,
  OFF_BATCH_LENGTH,
  SluiceError,
  type BatchHeader,
} from '@sluice/protocol'
import type { FileHandleCache } from '../io/file-handle-cache.js'
import { HeaderReader } from './header-scan.js'
import type { Segment } from './segment.js'

const READ_BYTES = 1024 * 1024

export async function* segmentBatches(seg: Segment): AsyncGenerator<Buffer> {
  const limit = seg.sizeBytes
  let pos = 0
  while (pos < limit) {
    const chunk = await seg.readLog(pos, Math.min(READ_BYTES, limit - pos))
    let at = 0
    while (chunk.length - at >= BATCH_HEADER_BYTES) {
      const size = batchSize(chunk, at, seg, pos + at)
      if (at + size > chunk.length) break
      yield chunk.subarray(at, at + size)
      at += size
    }
    if (at === 0) {
      if (chunk.length < BATCH_HEADER_BYTES) throw badBatch(seg, pos)
      const size = batchSize(chunk, 0, seg, pos)
      const whole = await seg.readLog(pos, size)
      if (whole.length !== size) throw badBatch(seg, pos)
      yield whole
      at = size
    }
    pos += at
  }
}

export async function* segmentHeaders(seg: Segment, cache: FileHandleCache): AsyncGenerator<BatchHeader> {
  const limit = seg.sizeBytes
  let pos = 0
  while (pos < limit) {
    // One pin per window of headers keeps the file-handle budget fair to other users.
    const headers = await cache.use(seg.paths.log, async (fh) => {
      const reader = new HeaderReader(fh, seg.paths.log)
      const out: BatchHeader[] = []
      for (let i = 0; i < 256; i++) {
        const h = await reader.headerAt(pos, limit)
        if (h === undefined) break
        out.push(h)
        pos += h.sizeBytes
      }
      return out
    })
    if (headers.length === 0) {
      if (pos < limit) throw badBatch(seg, pos)
      return
    }
    yield* headers
  }
}

function batchSize(buf: Buffer, at: number, seg: Segment, position: number): number {
  const size = LOG_OVERHEAD_BYTES + readInt32BE(buf, at + OFF_BATCH_LENGTH)
  if (size < BATCH_HEADER_BYTES) throw badBatch(seg, position)
  return size
}

function badBatch(seg: Segment, position: number): SluiceError {
  return new SluiceError('KAFKA_STORAGE_ERROR', `no valid batch at ${seg.paths.log}:${position}`, {
    file: seg.paths.log,
    position,
  })
}
