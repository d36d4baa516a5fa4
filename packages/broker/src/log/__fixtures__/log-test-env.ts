/**
 * Shared test scaffolding for the log tests (no vitest import, so the micro-benchmarks can use it
 * too): a capturing pino logger, and leader/follower append helpers. Under __fixtures__, so the
 * build leaves it out of dist.
 */
import { pino, type Logger } from 'pino'
import { decodeRecordBatches, validateBatches, type BatchHeader } from '@sluice/protocol'
import { DEFAULT_LOG_CONFIG, type LogConfig } from '../log-config.js'
import type { LeaderAppendPlan, PartitionLog } from '../partition/partition-log.js'

export interface CapturedLogger {
  logger: Logger
  lines: Array<Record<string, unknown>>
}

/** A pino logger whose JSON lines are kept in memory (warn and above unless `level`). */
export function captureLogger(level: pino.LevelWithSilent = 'warn'): CapturedLogger {
  const lines: Array<Record<string, unknown>> = []
  const logger = pino(
    { level },
    {
      write(msg: string) {
        lines.push(JSON.parse(msg) as Record<string, unknown>)
      },
    },
  )
  return { logger, lines }
}

export function testConfig(overrides: Partial<LogConfig> = {}): LogConfig {
  return { ...DEFAULT_LOG_CONFIG, ...overrides }
}

/** A leader append (plan, then write, in one write task, as Partition does) over a copy of the batches (stamping writes into the buffer). */
export async function appendLeader(
  log: PartitionLog,
  batches: readonly Buffer[],
  epoch = 0,
): Promise<{ firstOffset: bigint; lastOffset: bigint; maxTimestamp: bigint; stamped: Buffer }> {
  const buf = Buffer.concat(batches)
  const { firstOffset, lastOffset, maxTimestamp } = await appendStamped(log, buf, epoch)
  return { firstOffset, lastOffset, maxTimestamp, stamped: buf }
}

/** Plans and writes `buf` (whole batches, stamped in place) as a leader append of `epoch`. */
export function appendStamped(log: PartitionLog, buf: Buffer, epoch = 0): Promise<LeaderAppendPlan> {
  return log.exclusively(async () => {
    const plan = log.planLeaderAppend(buf, validateBatches(buf), epoch)
    await log.appendPlanned(buf, plan)
    return plan
  })
}

/** Splits a buffer of whole batches into one buffer per batch. */
export function splitBatches(buf: Buffer): Buffer[] {
  if (buf.length === 0) return []
  return validateBatches(buf).map((s) => buf.subarray(s.position, s.position + s.sizeBytes))
}

export interface ReadRecord {
  offset: bigint
  key: string | null
  value: string | null
}

/** Every record from logStartOffset to logEndOffset, and the raw batch headers seen. */
export async function readAll(log: PartitionLog): Promise<{ records: ReadRecord[]; headers: BatchHeader[] }> {
  const records: ReadRecord[] = []
  const headers: BatchHeader[] = []
  let offset = log.logStartOffset
  for (let i = 0; i < 10_000 && offset < log.logEndOffset; i++) {
    const { records: buf } = await log.read(offset, 1 << 20, { minOneBatch: true })
    if (buf.length === 0) break
    for (const b of decodeRecordBatches(buf)) {
      headers.push(b.header)
      for (const r of b.records)
        records.push({ offset: r.offset, key: r.key?.toString() ?? null, value: r.value?.toString() ?? null })
      offset = b.header.baseOffset + BigInt(b.header.lastOffsetDelta) + 1n
    }
  }
  return { records, headers }
}
