/**
 * Positional read/write helpers over FileHandle that loop on short transfers, so callers can
 * treat each call as one whole read or write. Loops are bounded by the byte count.
 *
 * Writes up to SYNC_WRITE_MAX_BYTES, and reads of bytes this process wrote moments ago
 * (`readAtSync`), run on the event loop with fs.writeSync/readSync: they copy into or out of the
 * page cache in microseconds, whereas the FileHandle calls hand each one to libuv's thread pool
 * and wake the loop again when it is done, which costs 0.2-0.5 ms on a busy 2-core machine and
 * sat on every hop of an acks=all round (docs/decisions.md, "Log I/O on the event loop").
 * Larger writes and reads of old data keep the thread pool, so a cold read from disk never
 * blocks the loop.
 */
import fs from 'node:fs'
import type { FileHandle } from 'node:fs/promises'

/** Above this a write goes to the thread pool (a 1 MiB copy into the page cache is about 0.1 ms). */
export const SYNC_WRITE_MAX_BYTES = 1024 * 1024

/** Reads up to `length` bytes at `position`; returns the bytes actually read (short at EOF). */
export async function readAt(fh: FileHandle, position: number, length: number, into?: Buffer): Promise<Buffer> {
  const buf = into ?? Buffer.allocUnsafe(length)
  let done = 0
  while (done < length) {
    const { bytesRead } = await fh.read(buf, done, length - done, position + done)
    if (bytesRead === 0) break
    done += bytesRead
  }
  return done === buf.length ? buf : buf.subarray(0, done)
}

/**
 * readAt on the event loop, for bytes known to be in the page cache (just written by this
 * process: the tail of an active segment).
 */
export function readAtSync(fh: FileHandle, position: number, length: number): Buffer {
  const buf = Buffer.allocUnsafe(length)
  let done = 0
  while (done < length) {
    const bytesRead = fs.readSync(fh.fd, buf, done, length - done, position + done)
    if (bytesRead === 0) break
    done += bytesRead
  }
  return done === buf.length ? buf : buf.subarray(0, done)
}

/** Fills `buf` from `position`; false if the file ends first. */
export async function readExactly(fh: FileHandle, buf: Buffer, position: number): Promise<boolean> {
  return (await readAt(fh, position, buf.length, buf)).length === buf.length
}

/** Writes all of buf[start, end) at `position` (a positional write; never O_APPEND semantics). */
export async function writeFully(
  fh: FileHandle,
  buf: Buffer,
  start: number,
  end: number,
  position: number,
): Promise<void> {
  if (end - start <= SYNC_WRITE_MAX_BYTES) {
    writeFullySync(fh, buf, start, end, position)
    return
  }
  let done = start
  while (done < end) {
    const { bytesWritten } = await fh.write(buf, done, end - done, position + (done - start))
    if (bytesWritten <= 0) throw new Error(`short write at position ${position + (done - start)}`)
    done += bytesWritten
  }
}

/** writeFully on the event loop (for writes up to SYNC_WRITE_MAX_BYTES). */
export function writeFullySync(fh: FileHandle, buf: Buffer, start: number, end: number, position: number): void {
  let done = start
  while (done < end) {
    const bytesWritten = fs.writeSync(fh.fd, buf, done, end - done, position + (done - start))
    if (bytesWritten <= 0) throw new Error(`short write at position ${position + (done - start)}`)
    done += bytesWritten
  }
}
