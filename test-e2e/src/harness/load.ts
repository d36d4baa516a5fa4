/**
 * The write load of a fault scenario: a bounded loop (a record count and a time limit) that sends
 * keyed records `<key>:<seq>` through one producer (acks=all; the producer is idempotent by
 * default), one record per send() call so each record's outcome is known, with at most
 * `maxOutstanding` unsettled sends and a paced rate so the 2-core CI machine is not swamped.
 * Every outcome goes to the LoadRecorder the checker reads. Keys are spread over partitions by
 * the default partitioner; a key always maps to one partition, so its seqs must read back in
 * order.
 */
import type { Producer } from '@sluice/client'
import { waitFor } from '@sluice/testkit'
import type { LoadRecorder } from './checker.js'

export interface LoadOptions {
  readonly producer: Producer
  readonly topic: string
  readonly recorder: LoadRecorder
  /** Distinct keys. Default 32. */
  readonly keys?: number
  /** Stop after this many records. Default 200,000. */
  readonly maxRecords?: number
  /** Stop after this long. Default 120 s. */
  readonly maxDurationMs?: number
  /** Unsettled send() calls at most. Default 64. */
  readonly maxOutstanding?: number
  /** Records per second at most. Default 500. */
  readonly ratePerSec?: number
}

export interface LoadSummary {
  readonly sent: number
  readonly acked: number
  readonly failed: number
  readonly durationMs: number
}

export interface RunningLoad {
  sent(): number
  acked(): number
  failed(): number
  /** Resolves once `more` records beyond those acked now are acknowledged. */
  waitForMoreAcks(more: number, options?: { timeoutMs?: number; description?: string }): Promise<void>
  /** Stops sending and waits until every send settled (the producer's delivery timeout bounds it). */
  stop(): Promise<LoadSummary>
  /** Resolves when the loop ends by itself (limits) or by stop(), once every send settled. */
  readonly done: Promise<LoadSummary>
}

export function startLoad(options: LoadOptions): RunningLoad {
  const keys = options.keys ?? 32
  const maxRecords = options.maxRecords ?? 200_000
  const maxDurationMs = options.maxDurationMs ?? 120_000
  const maxOutstanding = options.maxOutstanding ?? 64
  const ratePerSec = options.ratePerSec ?? 500
  const nextSeq = new Array<number>(keys).fill(0)
  const outstanding = new Set<Promise<void>>()
  let sent = 0
  let acked = 0
  let failed = 0
  let stopping = false
  const started = Date.now()

  const sendOne = (i: number): void => {
    const k = i % keys
    const key = `k${k}`
    const seq = nextSeq[k]!++
    const p = options.producer
      .send({ topic: options.topic, records: [{ key, value: `${key}:${seq}` }] })
      .then(
        (md) => {
          const m = md[0]!
          acked++
          options.recorder.acked({ partition: m.partition, offset: m.offset, key, seq })
        },
        (err: unknown) => {
          failed++
          const code = (err as { code?: unknown }).code
          options.recorder.failed({ key, seq }, typeof code === 'string' ? code : (err as Error).name)
        },
      )
      .finally(() => {
        outstanding.delete(p)
      })
    outstanding.add(p)
    sent++
  }

  const done = (async (): Promise<LoadSummary> => {
    while (!stopping && sent < maxRecords && Date.now() - started < maxDurationMs) {
      if (outstanding.size >= maxOutstanding) {
        await Promise.race(outstanding)
        continue
      }
      // Pacing, not synchronisation: stay at or under ratePerSec on average.
      const aheadMs = (sent / ratePerSec) * 1000 - (Date.now() - started)
      if (aheadMs > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(aheadMs, 50)))
      else sendOne(sent)
    }
    await Promise.all([...outstanding])
    return { sent, acked, failed, durationMs: Date.now() - started }
  })()

  return {
    sent: () => sent,
    acked: () => acked,
    failed: () => failed,
    waitForMoreAcks: async (more, waitOptions = {}) => {
      const target = acked + more
      await waitFor(() => acked >= target, {
        timeoutMs: waitOptions.timeoutMs ?? 30_000,
        description: `${waitOptions.description ?? 'the load'}: ${more} more acknowledged records (acked ${acked}, failed ${failed}, target ${target})`,
      })
    },
    stop: async () => {
      stopping = true
      return await done
    },
    done,
  }
}
