/**
 * Which leading segments retention may delete (docs/kafka-facts.md §8.1, Kafka
 * `UnifiedLog.deletableSegments`). Only whole segments go, oldest first, stopping at the first one
 * that does not qualify. A segment qualifies when its end offset (the next segment's base, or the
 * log end for the active one) is at or below the high watermark, it is not an empty active
 * segment, and
 *   - the next segment starts at or below the log start offset (DeleteRecords moved past it), or
 *   - cleanup.policy includes delete and either
 *       time: now − its largest timestamp > retention.ms (file mtime when no batch has one), or
 *       size: the partition stays at or above retention.bytes without it.
 * When the active segment qualifies too, the caller rolls first so an empty active segment stays.
 * Reads only what the segments cache (a closed segment's max timestamp is read from its time
 * index once), and reports when the verdict can next change by time alone, so the scheduler can
 * skip an unchanged partition without touching its files.
 */
import fs from 'node:fs/promises'
import { retentionEnabled, type LogConfig } from '../log-config.js'
import type { Segment } from '../segment/segment.js'

export type RetentionReason = 'log-start-offset' | 'retention.ms' | 'retention.bytes'

export interface RetentionPlan {
  /** How many leading segments to delete. */
  count: number
  /** Why each of them goes. */
  reasons: RetentionReason[]
  /** The active segment is among them: roll before deleting. */
  rollActive: boolean
  /** Earliest time (ms) at which the time rule could delete the first kept segment; Infinity if never. */
  recheckAt: number
}

export interface RetentionInputs {
  now: number
  highWatermark: bigint
  logStartOffset: bigint
}

export async function planRetention(
  segments: readonly Segment[],
  config: LogConfig,
  inputs: RetentionInputs,
): Promise<RetentionPlan> {
  const n = segments.length
  let total = 0
  for (const s of segments) total += s.sizeBytes
  const reasons: RetentionReason[] = []
  let recheckAt = Infinity
  const byTime = retentionEnabled(config) && config.retentionMs >= 0
  const bySize = retentionEnabled(config) && config.retentionBytes >= 0
  for (let i = 0; i < n; i++) {
    const seg = segments[i]!
    const next = segments[i + 1]
    const isActive = next === undefined
    if (isActive && seg.sizeBytes === 0) break
    const end = next?.baseOffset ?? seg.nextOffset
    if (end > inputs.highWatermark) break
    let reason: RetentionReason | undefined
    if (next !== undefined && next.baseOffset <= inputs.logStartOffset) reason = 'log-start-offset'
    if (reason === undefined && byTime) {
      const largest = await largestTimestamp(seg, inputs.now)
      if (inputs.now - largest > config.retentionMs) reason = 'retention.ms'
      else recheckAt = largest + config.retentionMs + 1
    }
    if (reason === undefined && bySize && total - seg.sizeBytes >= config.retentionBytes) reason = 'retention.bytes'
    if (reason === undefined) break
    reasons.push(reason)
    total -= seg.sizeBytes
  }
  return { count: reasons.length, reasons, rollActive: reasons.length === n, recheckAt }
}

/**
 * The segment's largest record timestamp, or its file's mtime when no batch carries one (Kafka);
 * `now` when even that is unreadable (the segment then counts as written just now).
 */
async function largestTimestamp(seg: Segment, now: number): Promise<number> {
  const ts = await seg.maxTimestamp()
  if (ts >= 0n) return Number(ts)
  try {
    return (await fs.stat(seg.paths.log)).mtimeMs
  } catch {
    return now
  }
}
