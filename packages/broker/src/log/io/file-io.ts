/**
 * Positional read/write helpers over FileHandle that loop on short transfers, so callers can
 * treat each call as one whole read or write. Loops are bounded by the byte count.
 */
import type { FileHandle } from 'node:fs/promises'

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
  let done = start
  while (done < end) {
    const { bytesWritten } = await fh.write(buf, done, end - done, position + (done - start))
    if (bytesWritten <= 0) throw new Error(`short write at position ${position + (done - start)}`)
    done += bytesWritten
  }
}
