/**
 * Walks batch headers in a .log file without reading records: each step reads the 61-byte header
 * at a position (through an 8 KiB window, so runs of small batches cost one read) and jumps by
 * the batch size. Used by offset lookups (after the sparse index narrowed the start) and to find
 * a segment's next offset on a clean load. Data is trusted here (it passed CRC on append or
 * recovery); a header that cannot be a batch means the file changed under us or an index lied,
 * and is reported as KAFKA_STORAGE_ERROR rather than served.
 */
import type { FileHandle } from 'node:fs/promises'
import { BATCH_HEADER_BYTES, SluiceError, readBatchHeader, type BatchHeader } from '@sluice/protocol'
import { readAt } from '../io/file-io.js'

const WINDOW_BYTES = 8192

export class HeaderReader {
  private window: Buffer = Buffer.alloc(0)
  private windowStart = 0

  constructor(
    private readonly fh: FileHandle,
    private readonly file: string,
  ) {}

  /** Header of the batch at `position` if it lies wholly below `limit`; undefined at the end. */
  async headerAt(position: number, limit: number): Promise<BatchHeader | undefined> {
    if (limit - position < BATCH_HEADER_BYTES) return undefined
    const rel = position - this.windowStart
    if (rel < 0 || rel + BATCH_HEADER_BYTES > this.window.length) {
      this.window = await readAt(this.fh, position, Math.min(WINDOW_BYTES, limit - position))
      this.windowStart = position
    }
    const h = readBatchHeader(this.window, position - this.windowStart)
    if (h === undefined) return undefined
    if (h.sizeBytes < BATCH_HEADER_BYTES || position + h.sizeBytes > limit || h.magic !== 2) {
      throw new SluiceError('KAFKA_STORAGE_ERROR', `no valid batch header at ${this.file}:${position}`, {
        file: this.file,
        position,
      })
    }
    return h
  }

  /**
   * The first batch at or after `position` (which must be a batch boundary) whose lastOffset is
   * >= `target`: its position and header, or the end position when every batch ends before it.
   */
  async seekOffset(
    position: number,
    limit: number,
    target: bigint,
  ): Promise<{ position: number; header: BatchHeader | undefined }> {
    let pos = position
    for (;;) {
      const h = await this.headerAt(pos, limit)
      if (h === undefined) return { position: pos, header: undefined }
      if (h.baseOffset + BigInt(h.lastOffsetDelta) >= target) return { position: pos, header: h }
      pos += h.sizeBytes
    }
  }

  /** The first batch at or after `position` whose maxTimestamp is >= `ts`, or undefined. */
  async seekTimestamp(position: number, limit: number, ts: bigint): Promise<BatchHeader | undefined> {
    let pos = position
    for (;;) {
      const h = await this.headerAt(pos, limit)
      if (h === undefined || h.maxTimestamp >= ts) return h
      pos += h.sizeBytes
    }
  }
}
