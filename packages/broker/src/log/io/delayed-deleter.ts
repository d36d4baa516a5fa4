/**
 * Removes files some time after they were renamed away (Kafka's `file.delete.delay.ms`): a
 * segment leaving the log is renamed to `<file>.deleted` at once, so no new reader finds it, and
 * unlinked here once reads that started before the rename had time to finish.
 * One LogManager owns one deleter with at most ONE timer (armed for the earliest due batch,
 * unref'd), whatever the number of partitions. `flush()` removes everything now (close); files
 * left behind by a crash are removed by the partition loader at the next start.
 */
import fs from 'node:fs/promises'
import { systemClock, type Clock, type Timer } from '@sluice/protocol'
import type { Logger } from 'pino'

interface Pending {
  dueAt: number
  files: string[]
}

export class DelayedDeleter {
  private pending: Pending[] = []
  private timer: Timer | undefined
  private running: Promise<void> = Promise.resolve()

  constructor(
    private readonly delayMs: number,
    private readonly logger: Logger,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Files waiting for removal. @internal (tests) */
  get pendingFiles(): number {
    return this.pending.reduce((n, p) => n + p.files.length, 0)
  }

  /** Queues `files` for removal after the delay; with no delay, resolves once they are gone. */
  async schedule(files: string[]): Promise<void> {
    if (files.length === 0) return
    if (this.delayMs <= 0) {
      this.running = this.running.then(() => this.remove(files))
      await this.running
      return
    }
    this.pending.push({ dueAt: this.clock.nowMs() + this.delayMs, files })
    this.arm()
  }

  /** Removes every pending file now and stops the timer. */
  async flush(): Promise<void> {
    this.timer?.cancel()
    this.timer = undefined
    const all = this.pending.flatMap((p) => p.files)
    this.pending = []
    await this.running
    await this.remove(all)
  }

  /** Drops pending removals without doing them (a simulated crash leaves the files). @internal (tests) */
  async abandon(): Promise<void> {
    this.timer?.cancel()
    this.timer = undefined
    this.pending = []
    await this.running
  }

  private arm(): void {
    if (this.timer !== undefined || this.pending.length === 0) return
    const due = Math.min(...this.pending.map((p) => p.dueAt))
    this.timer = this.clock
      .setTimeout(
        () => {
          this.timer = undefined
          const now = this.clock.nowMs()
          const ready = this.pending.filter((p) => p.dueAt <= now)
          this.pending = this.pending.filter((p) => p.dueAt > now)
          this.running = this.running.then(() => this.remove(ready.flatMap((p) => p.files)))
          this.arm()
        },
        Math.max(0, due - this.clock.nowMs()),
      )
      .unref()
  }

  private async remove(files: string[]): Promise<void> {
    for (const f of files) {
      await fs.rm(f, { force: true }).catch((err: unknown) => {
        this.logger.warn({ err, file: f }, 'could not remove a deleted segment file')
      })
    }
  }
}
