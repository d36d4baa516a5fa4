/**
 * Waits for a series' measured answers, with a deadline: a probe whose peer stopped answering
 * fails with a clear error instead of hanging the bench.
 */
export class AnswerTracker {
  private seen = 0
  private resolveDone: () => void = () => {}
  private timer: NodeJS.Timeout | undefined
  readonly done: Promise<void>

  constructor(
    private readonly expected: number,
    timeoutMs: number,
    what: string,
  ) {
    this.done = new Promise<void>((resolve, reject) => {
      this.resolveDone = resolve
      this.timer = setTimeout(
        () => reject(new Error(`${what}: ${this.seen} of ${this.expected} answers within ${timeoutMs} ms`)),
        timeoutMs,
      )
    })
    if (expected === 0) this.finish()
  }

  answered(): void {
    if (++this.seen === this.expected) this.finish()
  }

  private finish(): void {
    clearTimeout(this.timer)
    this.resolveDone()
  }
}

/** How long a series may take: its paced duration plus a generous margin for a loaded machine. */
export function seriesTimeoutMs(ratePerSec: number, messages: number): number {
  return 10_000 + (messages / ratePerSec) * 3000
}

/** Polls `check` every 20 ms until it holds or `timeoutMs` passes (a peer in another process). */
export async function pollUntil(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = performance.now() + timeoutMs
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`${what}: not done within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
