/**
 * What every consumer worker counts, whatever client fetches (consumer-worker.ts: the SDK;
 * kafkajs-consumer-worker.ts: kafkajs): records and value bytes after the warm-up, and with
 * `latency` the arrival minus each value's intended send time (CLOCK_MONOTONIC ns, written by
 * producer-load.ts) into an HDR histogram. Drain mode (`expectRecords`) ends at the last record.
 */
import { newHistogram, recordUs, summarize } from '../histogram.js'
import { cpuPercentSince, type ConsumerWorkerConfig, type ConsumerWorkerResult } from '../worker-protocol.js'

export class ConsumedCounter {
  private readonly hist = newHistogram()
  private startMs = 0
  private startCpu = process.cpuUsage()
  private warmEndMs = 0
  private total = 0
  private counted = 0
  private bytes = 0
  private lastMs = 0
  private finish!: () => void
  /** Resolves when the expected records arrived (drain mode), or when end() is called. */
  readonly done = new Promise<void>((resolve) => {
    this.finish = resolve
  })

  constructor(private readonly config: ConsumerWorkerConfig) {}

  /** GO: the measured run starts now. */
  start(): void {
    this.startMs = performance.now()
    this.startCpu = process.cpuUsage()
    this.lastMs = this.startMs
    this.warmEndMs = this.config.expectRecords === undefined ? this.startMs + this.config.warmupMs : this.startMs
  }

  onBatch(values: ReadonlyArray<Buffer | null>): void {
    const now = performance.now()
    this.total += values.length
    this.lastMs = now
    if (now >= this.warmEndMs) {
      this.counted += values.length
      for (const v of values) this.bytes += v?.length ?? 0
      if (this.config.latency) {
        const nowNs = process.hrtime.bigint()
        for (const v of values) {
          if (v === null || v.length < 12) continue
          recordUs(this.hist, Number(nowNs - v.readBigInt64BE(0)) / 1000)
        }
      }
    }
    if (this.config.expectRecords !== undefined && this.total >= this.config.expectRecords) this.finish()
  }

  end(): void {
    this.finish()
  }

  result(timedOut: boolean): ConsumerWorkerResult {
    const endMs = this.config.expectRecords !== undefined ? this.lastMs : performance.now()
    const windowMs = Math.max(1, endMs - this.warmEndMs)
    return {
      records: this.counted,
      bytes: this.bytes,
      windowMs: Math.round(windowMs),
      recordsPerSec: Math.round(this.counted / (windowMs / 1000)),
      mbPerSec: Math.round((this.bytes / 1e6 / (windowMs / 1000)) * 10) / 10,
      totalRecords: this.total,
      latency: this.config.latency ? summarize(this.hist) : undefined,
      cpuPercent: cpuPercentSince(this.startCpu, this.startMs),
      timedOut,
    }
  }
}

/** Waits for the counter (or STOP, or the config's timeout); true when the timeout ended it. */
export async function awaitConsumed(
  counter: ConsumedCounter,
  config: ConsumerWorkerConfig,
  stop: Promise<void>,
): Promise<boolean> {
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    counter.end()
  }, config.timeoutMs)
  void stop.then(() => counter.end())
  await counter.done
  clearTimeout(timer)
  return timedOut
}
