/**
 * One replica's copy of a partition in the round skeleton: the chunks as they arrived (a
 * produce request's or a fetch answer's records for this partition), each written to the
 * replica's own file with fs.writeSync as Sluice's log writes small appends (no fsync, as
 * Sluice's default), and kept in memory so a fetch answer is a copy of chunks.
 */
import { closeSync, openSync, writeSync } from 'node:fs'

interface Chunk {
  readonly base: number
  readonly count: number
  readonly bytes: Buffer
}

export class RoundLog {
  private readonly chunks: Chunk[] = []
  private readonly fd: number
  endOffset = 0

  constructor(file: string) {
    this.fd = openSync(file, 'a')
  }

  /** Appends `count` records; returns their base offset. */
  append(count: number, data: Buffer): number {
    const base = this.endOffset
    writeSync(this.fd, data)
    // The caller's buffer is a view of a frame it may not keep: keep a copy, as a log keeps bytes.
    this.chunks.push({ base, count, bytes: Buffer.from(data) })
    this.endOffset += count
    return base
  }

  /**
   * The chunks from `offset` (a chunk boundary: every reader fetches whole chunks) up to `end`,
   * at most `maxBytes` (at least one chunk).
   */
  read(offset: number, end: number, maxBytes: number): { count: number; chunks: Buffer[] } {
    let lo = 0
    let hi = this.chunks.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (this.chunks[mid]!.base < offset) lo = mid + 1
      else hi = mid
    }
    const chunks: Buffer[] = []
    let count = 0
    let bytes = 0
    for (let i = lo; i < this.chunks.length; i++) {
      const c = this.chunks[i]!
      if (c.base + c.count > end || (chunks.length > 0 && bytes + c.bytes.length > maxBytes)) break
      chunks.push(c.bytes)
      count += c.count
      bytes += c.bytes.length
    }
    return { count, chunks }
  }

  close(): void {
    closeSync(this.fd)
  }
}
