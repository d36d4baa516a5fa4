/**
 * Waiting on conditions with a deadline instead of sleeping for a fixed time: the condition is
 * re-checked with a short, growing interval until it holds or the deadline passes, and the
 * timeout error says what was awaited and the last failure seen.
 */
import { setTimeout as delay } from 'node:timers/promises'

export interface WaitOptions {
  readonly timeoutMs?: number // default 30 s: generous, the CI machine has 2 cores
  readonly intervalMs?: number // first retry interval, doubling up to 500 ms
  readonly description?: string
}

/**
 * Calls `check` until it returns a value other than undefined/false and returns that value.
 * A throwing check counts as "not yet" (its error is reported if the deadline passes).
 */
export async function waitFor<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  options: WaitOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 30_000
  const deadline = Date.now() + timeoutMs
  let intervalMs = options.intervalMs ?? 20
  let lastError: unknown
  for (;;) {
    try {
      const result = await check()
      if (result !== undefined && result !== false) return result
    } catch (err) {
      lastError = err
    }
    if (Date.now() >= deadline) {
      const why = lastError === undefined ? '' : `; last error: ${(lastError as Error)?.message ?? String(lastError)}`
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${options.description ?? 'a condition'}${why}`, {
        cause: lastError,
      })
    }
    await delay(Math.min(intervalMs, Math.max(1, deadline - Date.now())))
    intervalMs = Math.min(intervalMs * 2, 500)
  }
}

/** Resolves with the promise's value, or rejects once `timeoutMs` passes. */
export async function withTimeout<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs)
  })
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}
