/**
 * The producer-state snapshot file, `<partition dir>/producer-state.snapshot`: the state of every
 * live producer as of a log offset, so a restart replays only the batches after that offset.
 *
 * Format (text, one file per partition, replaced atomically by write-to-.tmp + rename):
 *   line 1: `sluice-producer-state v1 <crc32c of line 2, 8 hex digits>`
 *   line 2: JSON `{ "offset": "<next offset after the state>", "producers": [[pid, epoch,
 *           lastTimestamp, [[firstSeq, lastSeq, firstOffset, lastOffset, timestamp], ...]], ...] }`
 *           (bigints as decimal strings).
 * A snapshot is only a shortcut: a missing, corrupt or unusable one (its offset above the log
 * end, i.e. the log was truncated after it was written) is ignored and the state is rebuilt by
 * scanning batch headers. It is not fsynced for the same reason. The leftover `.tmp` of a crash is
 * deleted by the partition loader like every other `*.tmp`.
 */
import fs from 'node:fs/promises'
import path from 'node:path'
import { crc32c } from '@sluice/protocol'
import type { ProducerEntry } from './producer-state-table.js'

export const SNAPSHOT_FILE = 'producer-state.snapshot'
const MAGIC = 'sluice-producer-state v1'

export interface ProducerSnapshot {
  /** The state covers every batch below this offset. */
  readonly offset: bigint
  readonly producers: ProducerEntry[]
}

type Row = [string, number, string, Array<[number, number, string, string, string]>]

export function encodeSnapshot(s: ProducerSnapshot): string {
  const rows: Row[] = s.producers.map((e) => [
    String(e.producerId),
    e.epoch,
    String(e.lastTimestamp),
    e.batches.map((b) => [b.firstSeq, b.lastSeq, String(b.firstOffset), String(b.lastOffset), String(b.timestamp)]),
  ])
  const body = JSON.stringify({ offset: String(s.offset), producers: rows })
  return `${MAGIC} ${crc32c(Buffer.from(body)).toString(16).padStart(8, '0')}\n${body}\n`
}

/** The snapshot in `text`, or undefined if it is not a valid v1 snapshot. Never throws. */
export function decodeSnapshot(text: string): ProducerSnapshot | undefined {
  try {
    const nl = text.indexOf('\n')
    const head = text.slice(0, nl)
    const body = text.slice(nl + 1).replace(/\n$/, '')
    if (nl < 0 || !head.startsWith(`${MAGIC} `)) return undefined
    if (Number.parseInt(head.slice(MAGIC.length + 1), 16) !== crc32c(Buffer.from(body))) return undefined
    const parsed = JSON.parse(body) as { offset: string; producers: Row[] }
    const producers: ProducerEntry[] = parsed.producers.map(([pid, epoch, last, batches]) => ({
      producerId: BigInt(pid),
      epoch,
      lastTimestamp: BigInt(last),
      batches: batches.map(([firstSeq, lastSeq, firstOffset, lastOffset, timestamp]) => ({
        firstSeq,
        lastSeq,
        firstOffset: BigInt(firstOffset),
        lastOffset: BigInt(lastOffset),
        timestamp: BigInt(timestamp),
      })),
    }))
    return { offset: BigInt(parsed.offset), producers }
  } catch {
    return undefined
  }
}

export async function readSnapshot(dir: string): Promise<ProducerSnapshot | undefined> {
  let text: string
  try {
    text = await fs.readFile(path.join(dir, SNAPSHOT_FILE), 'utf8')
  } catch {
    return undefined
  }
  return decodeSnapshot(text)
}

export async function writeSnapshot(dir: string, s: ProducerSnapshot): Promise<void> {
  const file = path.join(dir, SNAPSHOT_FILE)
  await fs.writeFile(`${file}.tmp`, encodeSnapshot(s))
  await fs.rename(`${file}.tmp`, file)
}

export async function deleteSnapshot(dir: string): Promise<void> {
  await fs.rm(path.join(dir, SNAPSHOT_FILE), { force: true })
}
