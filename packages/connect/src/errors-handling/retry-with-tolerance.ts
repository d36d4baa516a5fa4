/**
 * The error handler the worker runs each stage of a record through (Kafka Connect's
 * RetryWithToleranceOperator): convert, transform, put, produce. For one stage's operation it
 * - retries retriable failures (retriable.ts) with exponential backoff from 300 ms, doubling,
 *   capped at `errors.retry.delay.max.ms` and never past `errors.retry.timeout` from the first
 *   attempt (0: no retry, -1: until the task stops);
 * - logs the failure when `errors.log.enable` (with the record's key and value when
 *   `errors.log.include.messages`);
 * - with `errors.tolerance=all`, skips the record when the stage is one whose failures are the
 *   record's fault (converters, transforms; a source's produce, as Kafka since 3.2), sending a
 *   sink's consumed record to the dead-letter queue first; otherwise the task fails with a
 *   ConnectError 'TASK' ("tolerance exceeded") whose cause is the failure.
 * A failed put is never skipped here: it is the task's failure, not the record's (a sink task
 * reports a record it cannot write through report(), Kafka's errant record reporter).
 */
import type { Logger } from '@sluice/client'
import { stringifyJson } from '../converters/json-text.js'
import { ConnectError } from '../errors.js'
import {
  errorContextHeaders,
  failingClass,
  isSourceRecord,
  type ConsumedRecord,
  type DeadLetterRecord,
  type ErrorContext,
  type ErrorStage,
} from './error-context.js'
import type { ErrorHandlingConfig } from './error-handling-config.js'
import type { SourceRecord } from '../api/records.js'
import { isRetriable } from './retriable.js'

/** The stages whose failures `errors.tolerance=all` skips. */
const TOLERABLE_STAGES: ReadonlySet<ErrorStage> = new Set<ErrorStage>([
  'KEY_CONVERTER',
  'VALUE_CONVERTER',
  'HEADER_CONVERTER',
  'TRANSFORMATION',
  'KAFKA_PRODUCE',
])

/** Kafka's first backoff. */
const FIRST_DELAY_MS = 300
/** Logged keys and values are cut here, so one huge record cannot flood the log. */
const LOGGED_CHARS = 4096

/** Sends a skipped sink record to the dead-letter topic (the worker's producer); rejects on failure. */
export type DeadLetterSink = (record: DeadLetterRecord, error: unknown, stage: ErrorStage) => Promise<void>

export interface RetryWithToleranceDeps {
  readonly connector: string
  readonly taskId: number
  readonly logger: Logger
  /** Required when the config names a dead-letter topic. */
  readonly deadLetter?: DeadLetterSink
  /** Milliseconds; default Date.now. */
  readonly now?: () => number
  /** Waits `ms` or until `signal` aborts (then resolves early); default a timer. */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>
}

export interface StageContext {
  /** The record the stage works on: consumed bytes (sinks) or a polled record (sources). */
  readonly record?: ConsumedRecord | SourceRecord
  /** The class running the stage (a converter's class name); default: from the error, or the stage. */
  readonly className?: string
}

export type StageResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown }

/** Counters for the task's error metrics (Kafka's task-error-metrics group). */
export interface ErrorMetrics {
  /** Failed attempts, retried ones included (total-record-failures). */
  readonly failures: number
  /** Attempts after a retriable failure (total-retries). */
  readonly retries: number
  /** Operations that failed for good (total-record-errors). */
  readonly errors: number
  /** Records skipped by errors.tolerance=all (total-records-skipped). */
  readonly skipped: number
  readonly logged: number
  readonly deadLettered: number
  readonly deadLetterFailures: number
}

function defaultSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve()
    const done = () => {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal.addEventListener('abort', done)
  })
}

function excerpt(v: unknown): string | null {
  if (v === null || v === undefined) return null
  let text: string
  if (Buffer.isBuffer(v)) text = v.toString('utf8')
  else {
    try {
      text = stringifyJson(v)
    } catch {
      text = String(v)
    }
  }
  return text.length > LOGGED_CHARS ? `${text.slice(0, LOGGED_CHARS)}…` : text
}

export class RetryWithToleranceOperator {
  readonly #config: ErrorHandlingConfig
  readonly #deps: RetryWithToleranceDeps
  readonly #now: () => number
  readonly #sleep: (ms: number, signal: AbortSignal) => Promise<void>
  readonly #stop = new AbortController()
  readonly #m = { failures: 0, retries: 0, errors: 0, skipped: 0, logged: 0, deadLettered: 0, deadLetterFailures: 0 }

  constructor(config: ErrorHandlingConfig, deps: RetryWithToleranceDeps) {
    if (config.deadLetterTopic !== undefined && deps.deadLetter === undefined)
      throw new ConnectError(
        'RUNTIME',
        `a dead-letter topic (${config.deadLetterTopic}) is configured but no dead-letter sink given`,
      )
    this.#config = config
    this.#deps = deps
    this.#now = deps.now ?? Date.now
    this.#sleep = deps.sleep ?? defaultSleep
  }

  get config(): ErrorHandlingConfig {
    return this.#config
  }

  metrics(): ErrorMetrics {
    return { ...this.#m }
  }

  /** Ends retrying (the task stops): a backoff in progress ends and its operation fails. */
  stop(): void {
    this.#stop.abort()
  }

  /**
   * Runs one stage's operation with retries; `{ok: false}` when it failed and the failure was
   * tolerated (the record is skipped; for a sink it went to the dead-letter queue). Throws
   * ConnectError 'TASK' when the failure fails the task.
   */
  async execute<T>(
    stage: ErrorStage,
    operation: () => T | Promise<T>,
    context: StageContext = {},
  ): Promise<StageResult<T>> {
    const started = this.#now()
    let delay = FIRST_DELAY_MS
    for (;;) {
      try {
        return { ok: true, value: await operation() }
      } catch (e) {
        this.#m.failures++
        // A retriable failure while the task stops is not the record's fault: not skipped.
        if (this.#stop.signal.aborted && this.#config.retryTimeoutMs !== 0 && isRetriable(e))
          throw this.#stopped(stage, e)
        const wait = this.#backoff(e, started, delay)
        if (wait === undefined) return this.#failed(stage, e, context)
        this.#m.retries++
        this.#deps.logger.debug(
          { connector: this.#deps.connector, task: this.#deps.taskId, stage, delayMs: wait, err: e },
          'retrying after a retriable failure',
        )
        await this.#sleep(wait, this.#stop.signal)
        if (this.#stop.signal.aborted) throw this.#stopped(stage, e)
        delay = Math.min(delay * 2, Math.max(this.#config.retryMaxDelayMs, 1))
      }
    }
  }

  /**
   * A record a sink task could not write, reported by the task (Kafka's errant record
   * reporter): with errors.tolerance=all it is logged and dead-lettered and the task goes on;
   * with none the task fails.
   */
  async report(record: ConsumedRecord, error: unknown, className = 'SinkTask'): Promise<void> {
    this.#m.failures++
    await this.#handle({ ...this.#ctx('TASK_PUT', error, { record, className }) }, error, true)
  }

  #stopped(stage: ErrorStage, e: unknown): ConnectError {
    return new ConnectError('TASK', `the task stopped while retrying ${stage}`, { cause: e, details: { stage } })
  }

  /** The wait before the next attempt, or undefined when there is none. */
  #backoff(e: unknown, started: number, delay: number): number | undefined {
    const timeout = this.#config.retryTimeoutMs
    if (timeout === 0 || !isRetriable(e)) return undefined
    const wait = Math.min(delay, this.#config.retryMaxDelayMs)
    if (timeout === -1) return wait
    const left = started + timeout - this.#now()
    return left <= 0 ? undefined : Math.min(wait, left)
  }

  #ctx(stage: ErrorStage, error: unknown, context: StageContext): ErrorContext {
    return {
      connector: this.#deps.connector,
      taskId: this.#deps.taskId,
      stage,
      className: context.className ?? failingClass(error, stage),
      record: context.record,
    }
  }

  async #failed<T>(stage: ErrorStage, error: unknown, context: StageContext): Promise<StageResult<T>> {
    await this.#handle(this.#ctx(stage, error, context), error, TOLERABLE_STAGES.has(stage))
    return { ok: false, error }
  }

  async #handle(ctx: ErrorContext, error: unknown, stageTolerable: boolean): Promise<void> {
    this.#m.errors++
    const tolerated = stageTolerable && this.#config.tolerance === 'all'
    if (this.#config.logEnabled) this.#log(ctx, error, tolerated)
    if (!tolerated) {
      const reason = error instanceof Error ? error.message : String(error)
      const why = stageTolerable
        ? 'tolerance exceeded (errors.tolerance=none)'
        : 'a failure the error tolerance does not cover'
      throw new ConnectError('TASK', `${ctx.stage} failed, ${why}: ${reason}`, {
        cause: error,
        details: { connector: ctx.connector, task: ctx.taskId, stage: ctx.stage, ...this.#where(ctx) },
      })
    }
    this.#m.skipped++
    const dlq = this.#config.deadLetterTopic
    const record = ctx.record
    if (dlq === undefined || record === undefined || isSourceRecord(record)) return
    const headers = this.#config.deadLetterContextHeaders
      ? [...record.headers, ...errorContextHeaders(ctx, error, record)]
      : [...record.headers]
    const out: DeadLetterRecord = {
      topic: dlq,
      key: record.key,
      value: record.value,
      headers,
      ...(record.timestamp === undefined ? {} : { timestamp: record.timestamp }),
    }
    try {
      await this.#deps.deadLetter!(out, error, ctx.stage)
      this.#m.deadLettered++
    } catch (e) {
      // Not skipped after all: the record is neither written nor dead-lettered, so the task
      // fails and the record is read again after the restart (its offset was not committed).
      this.#m.deadLetterFailures++
      throw new ConnectError(
        'RUNTIME',
        `could not write to the dead-letter topic ${dlq}: ${e instanceof Error ? e.message : String(e)}`,
        {
          cause: e,
          details: { connector: ctx.connector, task: ctx.taskId, topic: dlq, stage: ctx.stage },
        },
      )
    }
  }

  #where(ctx: ErrorContext): Record<string, unknown> {
    const r = ctx.record
    if (r === undefined) return {}
    if (isSourceRecord(r)) return { topic: r.topic, sourcePartition: r.sourcePartition, sourceOffset: r.sourceOffset }
    return { topic: r.topic, partition: r.partition, offset: r.offset.toString() }
  }

  #log(ctx: ErrorContext, error: unknown, tolerated: boolean): void {
    this.#m.logged++
    const fields: Record<string, unknown> = {
      connector: ctx.connector,
      task: ctx.taskId,
      stage: ctx.stage,
      className: ctx.className,
      tolerated,
      err: error,
      ...this.#where(ctx),
    }
    if (this.#config.logIncludeMessages && ctx.record !== undefined) {
      fields.key = excerpt(ctx.record.key)
      fields.value = excerpt(ctx.record.value)
    }
    this.#deps.logger.error(fields, `error in stage ${ctx.stage} with class ${ctx.className}`)
  }
}
