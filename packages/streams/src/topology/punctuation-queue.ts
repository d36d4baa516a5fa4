/**
 * The punctuations of one task, of one type (stream time or wall-clock). A schedule fires when
 * time reaches its next due time, once, even if time jumped past several intervals (as Kafka:
 * a late punctuation is not replayed), and its next due time stays on the grid of its interval.
 * Stream-time schedules are on the grid from 0, so they fire with the first record; wall-clock
 * schedules start one interval after they are made.
 */
import type { Cancellable } from '../api/processor.js'

interface Schedule {
  readonly intervalMs: number
  nextMs: number
  cancelled: boolean
  readonly run: (timestampMs: number) => void
}

export class PunctuationQueue {
  private schedules: Schedule[] = []

  add(intervalMs: number, firstDueMs: number, run: (timestampMs: number) => void): Cancellable {
    const schedule: Schedule = { intervalMs, nextMs: firstDueMs, cancelled: false, run }
    this.schedules.push(schedule)
    return {
      cancel: () => {
        schedule.cancelled = true
        this.schedules = this.schedules.filter((s) => s !== schedule)
      },
    }
  }

  /** Runs every schedule due at `nowMs`, earliest due first. */
  fireDue(nowMs: number): void {
    const due = this.schedules.filter((s) => s.nextMs <= nowMs).sort((a, b) => a.nextMs - b.nextMs)
    for (const s of due) {
      // A callback may cancel a later schedule of the same round.
      if (s.cancelled) continue
      const next = s.nextMs + s.intervalMs
      s.nextMs = nowMs >= next ? nowMs - ((nowMs - s.nextMs) % s.intervalMs) + s.intervalMs : next
      s.run(nowMs)
    }
  }

  get size(): number {
    return this.schedules.length
  }
}
