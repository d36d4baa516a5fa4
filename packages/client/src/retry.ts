/**
 * The one retry helper of the SDK. It reads retriability from the error (the error table's
 * `retriable` flag via SluiceError), never from the call site, so a call can only be retried when
 * the server said it was safe to (docs/design.md §7):
 * - programmer errors (TypeError, RangeError, anything that is not a SluiceError) and
 *   non-retriable SluiceErrors end the loop at once;
 * - attempts are bounded (`retries` + 1) and so is the total time (`deadlineMs`);
 * - backoff is exponential with jitter, capped at `maxBackoffMs`;
 * - an AbortSignal stops the loop, including during a backoff, with the signal's reason;
 * - when more than one attempt was made, the final error keeps the last error's code and lists
 *   every attempt's error in `details.attempts` (the last one is also its `cause`).
 */
import { SluiceError, systemClock, type Clock } from '@sluice/protocol'
import type { RetryOptions } from './options.js'

export interface RetryCallOptions {
  retry: RetryOptions
  /** Budget for all attempts and backoffs together, from the first attempt. */
  deadlineMs?: number
  signal?: AbortSignal
  /** Named in the final error message. */
  operation?: string
  /** Called before each backoff, e.g. to refresh metadata after a staleMetadata error. */
  onRetry?: (err: SluiceError, attempt: number, delayMs: number) => void | Promise<void>
  /** @internal visible for testing */
  random?: () => number
  /** Times the deadline and the backoffs (default: systemClock). @internal visible for testing */
  clock?: Clock
}

export function isRetriable(err: unknown): err is SluiceError {
  return err instanceof SluiceError && err.retriable
}

/** The backoff before retry number `retry` (1-based), with jitter in [50%, 100%]. */
export function backoffMs(options: RetryOptions, retry: number, random: () => number = Math.random): number {
  const base = Math.min(options.maxBackoffMs, options.initialBackoffMs * options.factor ** (retry - 1))
  return Math.round(base / 2 + (random() * base) / 2)
}

/** Sleeps `ms` on the system clock, rejecting with the signal's reason if it aborts first. */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  await systemClock.sleep(ms, signal)
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted', 'AbortError')
}

/** Runs `fn` until it succeeds, fails for good, runs out of attempts or time, or is aborted. */
export async function withRetry<T>(fn: (attempt: number) => Promise<T>, options: RetryCallOptions): Promise<T> {
  const clock = options.clock ?? systemClock
  const now = (): number => clock.nowMs()
  const random = options.random ?? Math.random
  const started = now()
  const errors: unknown[] = []
  const maxAttempts = options.retry.retries + 1
  for (let attempt = 1; ; attempt++) {
    if (options.signal?.aborted === true) throw abortReason(options.signal)
    try {
      return await fn(attempt)
    } catch (err) {
      if (!(err instanceof SluiceError)) throw err // programmer error or foreign failure
      errors.push(err)
      if (!err.retriable || attempt >= maxAttempts) throw finalError(errors, options.operation)
      const delay = backoffMs(options.retry, attempt, random)
      if (options.deadlineMs !== undefined && now() + delay - started >= options.deadlineMs) {
        throw finalError(errors, options.operation, `deadline of ${options.deadlineMs} ms reached`)
      }
      await options.onRetry?.(err, attempt, delay)
      await clock.sleep(delay, options.signal)
    }
  }
}

function finalError(errors: unknown[], operation: string | undefined, why?: string): SluiceError {
  const last = errors[errors.length - 1] as SluiceError
  if (errors.length === 1 && why === undefined) return last
  const what = operation ?? 'operation'
  const reason = why ?? (last.retriable ? 'retries exhausted' : 'non-retriable error')
  return new SluiceError(
    last.code,
    `${what} failed after ${errors.length} attempt(s) (${reason}): ${last.message}`,
    { ...last.details, attempts: errors },
    { cause: last },
  )
}
