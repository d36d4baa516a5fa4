/**
 * `<dataDir>/replication-offset-checkpoint`: every hosted partition's high watermark, in Kafka's
 * checkpoint text format (version line 0, entry count, then "topic partition hw" lines), written
 * to a temp file, fsynced and renamed (log/io/checkpoint-file.ts), so a reader sees the old or the
 * new file, never a mix.
 *
 * Written by one timer for all partitions (default every 5 s, Kafka's
 * replica.high.watermark.checkpoint.interval.ms) only when some HW changed, and once more at clean
 * shutdown. "Changed" is a dirty flag the owner sets (markDirty: a HW moved, a partition was added
 * or removed), so an idle broker's tick is one boolean test, not a rebuild and sort of every
 * partition's entry (BENCHMARKS.md R9). On load a HW is clamped to its log's end offset
 * (Partition does it): the checkpoint may be newer than data that a crash lost. A missing or
 * corrupt file means HW 0 everywhere, which is safe (the HW only gates what consumers see;
 * followers relearn it from the leader).
 */
import path from 'node:path'
import type { Logger } from 'pino'
import { systemClock, type Clock, type Timer } from '@sluice/protocol'
import { parseOffsetField, readCheckpointFile, writeCheckpointFile } from '../log/io/checkpoint-file.js'
import { partitionKey } from '../metadata-cache.js'

export const REPLICATION_OFFSET_CHECKPOINT_FILE = 'replication-offset-checkpoint'

export interface HighWatermarkEntry {
  readonly topic: string
  readonly partition: number
  readonly highWatermark: bigint
}

/** partitionKey(topic, partition) -> HW. */
export async function readHighWatermarks(dataDir: string, logger: Logger): Promise<Map<string, bigint>> {
  const file = path.join(dataDir, REPLICATION_OFFSET_CHECKPOINT_FILE)
  const read = await readCheckpointFile(file, 3)
  const out = new Map<string, bigint>()
  if (read.kind === 'corrupt')
    logger.warn({ file, reason: read.reason }, 'high-watermark checkpoint unreadable; starting from 0')
  if (read.kind !== 'ok') return out
  for (const [topic, partition, hw] of read.entries) {
    const value = parseOffsetField(hw!)
    if (value !== undefined && /^\d{1,9}$/.test(partition!)) out.set(partitionKey(topic!, Number(partition)), value)
  }
  return out
}

export async function writeHighWatermarks(dataDir: string, entries: readonly HighWatermarkEntry[]): Promise<void> {
  await writeCheckpointFile(
    path.join(dataDir, REPLICATION_OFFSET_CHECKPOINT_FILE),
    entries.map((e) => [e.topic, String(e.partition), e.highWatermark.toString()]),
  )
}

export class HighWatermarkCheckpointer {
  private timer: Timer | undefined
  private lastWritten = ''
  /** Set by markDirty; starts true so the first tick (and stop) writes the loaded state once. */
  private dirty = true
  private writing: Promise<void> = Promise.resolve()

  constructor(
    private readonly options: {
      readonly dataDir: string
      readonly intervalMs: number
      readonly entries: () => HighWatermarkEntry[]
      readonly logger: Logger
      /** Times the periodic write (default systemClock). */
      readonly clock?: Clock
    },
  ) {}

  start(): void {
    if (this.timer !== undefined) return
    this.timer = (this.options.clock ?? systemClock)
      .setInterval(() => {
        this.write().catch((err: unknown) =>
          this.options.logger.warn({ err }, 'writing the high-watermark checkpoint failed'),
        )
      }, this.options.intervalMs)
      .unref()
  }

  /** Stops the timer and writes a final checkpoint. */
  async stop(): Promise<void> {
    this.timer?.cancel()
    this.timer = undefined
    await this.write()
  }

  /** Some HW or the set of partitions changed: the next write must rebuild the file. */
  markDirty(): void {
    this.dirty = true
  }

  /** Writes the checkpoint if anything was marked dirty since the last write; one write at a time. */
  write(): Promise<void> {
    this.writing = this.writing
      .catch(() => undefined)
      .then(async () => {
        if (!this.dirty) return
        // Cleared before reading the entries: a change during the write marks it dirty again.
        this.dirty = false
        const entries = this.options
          .entries()
          .sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition))
        const text = entries.map((e) => `${e.topic} ${e.partition} ${e.highWatermark}`).join('\n')
        if (text === this.lastWritten) return
        try {
          await writeHighWatermarks(this.options.dataDir, entries)
        } catch (err) {
          this.dirty = true // retry at the next tick
          throw err
        }
        this.lastWritten = text
      })
    return this.writing
  }
}
