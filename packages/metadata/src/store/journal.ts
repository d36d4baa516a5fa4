/**
 * The embedded store's append-only journal: one entry per committed store operation.
 *
 * Format of `<dataDir>/metadata.journal`, a sequence of entries:
 *   u32 BE payload length | u32 BE CRC-32C of the payload | payload (UTF-8 JSON {"z": zxid, "e": effects})
 * zxids strictly increase. An entry is durable once `append` resolves (write + fdatasync), and an
 * operation is acknowledged only after that. On open, entries are read until the first torn or
 * corrupt one (short header, short payload, bad CRC, unparsable JSON, non-increasing zxid); the file
 * is truncated there, because only an unacknowledged write can be torn. `reset` empties the file
 * after a snapshot has made its entries redundant. One writer at a time (the store's write lock).
 */
import { open, type FileHandle } from 'node:fs/promises'
import { crc32c } from '@sluice/protocol'
import type { JournalEffect } from './znode-tree.js'

export interface JournalEntry {
  readonly z: number
  readonly e: readonly JournalEffect[]
}

const HEADER_BYTES = 8
/** Larger lengths can only be garbage: the biggest legitimate entry is a topic of 10k partitions. */
const MAX_ENTRY_BYTES = 256 * 1024 * 1024

export interface JournalScan {
  readonly entries: JournalEntry[]
  /** Byte length of the valid prefix. */
  readonly validBytes: number
  readonly fileBytes: number
}

/** Decodes the valid prefix of a journal file's bytes. */
export function scanJournal(buf: Buffer): JournalScan {
  const entries: JournalEntry[] = []
  let pos = 0
  let lastZxid = -Infinity
  while (pos + HEADER_BYTES <= buf.length) {
    const len = buf.readUInt32BE(pos)
    const crc = buf.readUInt32BE(pos + 4)
    if (len > MAX_ENTRY_BYTES || pos + HEADER_BYTES + len > buf.length) break
    const payload = buf.subarray(pos + HEADER_BYTES, pos + HEADER_BYTES + len)
    if (crc32c(payload) !== crc) break
    let entry: JournalEntry
    try {
      entry = JSON.parse(payload.toString('utf8')) as JournalEntry
    } catch {
      break
    }
    if (typeof entry?.z !== 'number' || !Array.isArray(entry.e) || entry.z <= lastZxid) break
    lastZxid = entry.z
    entries.push(entry)
    pos += HEADER_BYTES + len
  }
  return { entries, validBytes: pos, fileBytes: buf.length }
}

export function encodeJournalEntry(entry: JournalEntry): Buffer {
  const payload = Buffer.from(JSON.stringify(entry), 'utf8')
  const header = Buffer.alloc(HEADER_BYTES)
  header.writeUInt32BE(payload.length, 0)
  header.writeUInt32BE(crc32c(payload), 4)
  return Buffer.concat([header, payload])
}

export class Journal {
  private constructor(
    private readonly fh: FileHandle,
    private sizeBytes: number,
    private count: number,
  ) {}

  /** Opens (creating) the journal, drops a torn tail, and returns the valid entries. */
  static async open(path: string): Promise<{ journal: Journal; scan: JournalScan }> {
    const fh = await open(path, 'a+')
    try {
      const buf = await fh.readFile()
      const scan = scanJournal(buf)
      if (scan.validBytes < scan.fileBytes) {
        await fh.truncate(scan.validBytes)
        await fh.datasync()
      }
      return { journal: new Journal(fh, scan.validBytes, scan.entries.length), scan }
    } catch (e) {
      await fh.close()
      throw e
    }
  }

  /** Entries written since the last reset (or open). */
  get entryCount(): number {
    return this.count
  }

  async append(entry: JournalEntry): Promise<void> {
    const bytes = encodeJournalEntry(entry)
    // 'a+' appends at the end regardless of position; a short write would throw or be retried here.
    let off = 0
    while (off < bytes.length) {
      const { bytesWritten } = await this.fh.write(bytes, off, bytes.length - off)
      off += bytesWritten
    }
    await this.fh.datasync()
    this.sizeBytes += bytes.length
    this.count += 1
  }

  async reset(): Promise<void> {
    await this.fh.truncate(0)
    await this.fh.datasync()
    this.sizeBytes = 0
    this.count = 0
  }

  get bytes(): number {
    return this.sizeBytes
  }

  async close(): Promise<void> {
    await this.fh.close()
  }
}
