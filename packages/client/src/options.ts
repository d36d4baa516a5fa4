/**
 * Client-wide options, their defaults and their validation. Options are checked once, when the
 * object is built, and every violation is reported at the same time (docs/design.md §7): a wrong type
 * is a TypeError, a value out of range a RangeError. Neither is ever retried.
 */
import type { Logger } from './logger.js'
import { silentLogger } from './logger.js'

/** How retriable operations back off. Only errors the error table marks retriable are retried. */
export interface RetryOptions {
  /** Retries after the first attempt (so at most retries + 1 attempts). Default 8. */
  retries: number
  /** Backoff before the first retry. Default 100 ms. */
  initialBackoffMs: number
  /** Cap of a single backoff. Default 2000 ms. */
  maxBackoffMs: number
  /** Growth of the backoff per attempt. Default 2. */
  factor: number
}

export interface ConnectOptions {
  /** host:port of one or more brokers; the rest of the cluster is discovered from them. */
  bootstrap: string[]
  /** Sent with every produce and fetch request, for the brokers' logs. Default 'sluice-client'. */
  clientId?: string
  /** A pino-compatible logger; the SDK logs nothing when omitted. */
  logger?: Logger
  /** Deadline of a single request (long-poll fetches add their wait). Default 30000 ms. */
  requestTimeoutMs?: number
  retry?: Partial<RetryOptions>
  /** Minimum time between two metadata refreshes. Default 100 ms. */
  metadataMinRefreshMs?: number
  /**
   * What producers and consumers send Produce and Fetch over. 'kafka' (the default): Kafka's own
   * Produce v9 and Fetch v12 on a plain TCP connection to each broker's Kafka listener, the
   * lowest-latency path; a broker that advertises no Kafka listener, and acks=0 producers (Kafka
   * answers nothing to those, so only gRPC can tell the request was written), use gRPC. 'grpc':
   * the brokers' gRPC Produce and Fetch streams for everything. Metadata, admin and group requests
   * are gRPC either way.
   */
  dataTransport?: DataTransport
}

/** The transport of the producer's and consumer's data path (ConnectOptions.dataTransport). */
export type DataTransport = 'kafka' | 'grpc'

export interface ResolvedConnectOptions {
  bootstrap: string[]
  clientId: string
  logger: Logger
  requestTimeoutMs: number
  retry: RetryOptions
  metadataMinRefreshMs: number
  dataTransport: DataTransport
}

/** See ConnectOptions.dataTransport. */
export const DEFAULT_DATA_TRANSPORT: DataTransport = 'kafka'

export const DEFAULT_RETRY: Readonly<RetryOptions> = {
  retries: 8,
  initialBackoffMs: 100,
  maxBackoffMs: 2000,
  factor: 2,
}

/** Collects violations so all of them are reported at once. */
export class OptionChecker {
  readonly problems: string[] = []
  private typeProblem = false

  constructor(private readonly what: string) {}

  int(name: string, v: unknown, min: number, max = Number.MAX_SAFE_INTEGER): void {
    if (v === undefined) return
    if (typeof v !== 'number' || !Number.isInteger(v)) {
      this.typeProblem = true
      this.problems.push(`${name} must be an integer, got ${String(v)}`)
    } else if (v < min || v > max) {
      this.problems.push(`${name} must be between ${min} and ${max}, got ${v}`)
    }
  }

  number(name: string, v: unknown, min: number): void {
    if (v === undefined) return
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      this.typeProblem = true
      this.problems.push(`${name} must be a finite number, got ${String(v)}`)
    } else if (v < min) {
      this.problems.push(`${name} must be at least ${min}, got ${v}`)
    }
  }

  oneOf(name: string, v: unknown, allowed: readonly unknown[]): void {
    if (v === undefined) return
    if (!allowed.includes(v)) {
      this.problems.push(
        `${name} must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}, got ${JSON.stringify(v)}`,
      )
    }
  }

  check(ok: boolean, problem: string, kind: 'type' | 'range' = 'range'): void {
    if (ok) return
    if (kind === 'type') this.typeProblem = true
    this.problems.push(problem)
  }

  /** Throws every collected problem at once. */
  done(): void {
    if (this.problems.length === 0) return
    const message = `invalid ${this.what} options: ${this.problems.join('; ')}`
    throw this.typeProblem ? new TypeError(message) : new RangeError(message)
  }
}

export function checkRetryOptions(c: OptionChecker, retry: Partial<RetryOptions> | undefined): RetryOptions {
  const r = { ...DEFAULT_RETRY, ...retry }
  c.int('retry.retries', r.retries, 0, 1000)
  c.int('retry.initialBackoffMs', r.initialBackoffMs, 0)
  c.int('retry.maxBackoffMs', r.maxBackoffMs, 0)
  c.number('retry.factor', r.factor, 1)
  c.check(r.maxBackoffMs >= r.initialBackoffMs, 'retry.maxBackoffMs must be >= retry.initialBackoffMs')
  return r
}

export function resolveConnectOptions(options: ConnectOptions): ResolvedConnectOptions {
  const c = new OptionChecker('connect')
  if (options === null || typeof options !== 'object')
    throw new TypeError('connect() needs an options object with bootstrap')
  const bootstrap = options.bootstrap
  c.check(
    Array.isArray(bootstrap) && bootstrap.length > 0 && bootstrap.every((b) => typeof b === 'string'),
    'bootstrap must be a non-empty array of "host:port" strings',
    'type',
  )
  if (Array.isArray(bootstrap)) {
    for (const b of bootstrap) {
      c.check(
        typeof b === 'string' && /^.+:\d{1,5}$/.test(b),
        `bootstrap entry ${JSON.stringify(b)} is not "host:port"`,
      )
    }
  }
  c.check(options.clientId === undefined || typeof options.clientId === 'string', 'clientId must be a string', 'type')
  c.int('requestTimeoutMs', options.requestTimeoutMs, 1)
  c.int('metadataMinRefreshMs', options.metadataMinRefreshMs, 0)
  c.oneOf('dataTransport', options.dataTransport, ['kafka', 'grpc'])
  const retry = checkRetryOptions(c, options.retry)
  c.done()
  return {
    bootstrap: [...bootstrap],
    clientId: options.clientId ?? 'sluice-client',
    logger: options.logger ?? silentLogger,
    requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
    retry,
    metadataMinRefreshMs: options.metadataMinRefreshMs ?? 100,
    dataTransport: options.dataTransport ?? DEFAULT_DATA_TRANSPORT,
  }
}
