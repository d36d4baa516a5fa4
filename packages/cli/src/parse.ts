/**
 * Parsers for command-line values. Each takes the raw string commander hands over and returns a
 * typed value or throws commander's InvalidArgumentError, which commander prints as
 * `error: option '--x <n>' argument 'y' is invalid. <reason>` and exits 1.
 */
import { InvalidArgumentError } from 'commander'

/** Broker 1's gRPC port under `sluice dev` (9092 is its Kafka listener's, docs/decisions.md). */
export const DEFAULT_BOOTSTRAP = '127.0.0.1:9192'

/** `host:port[,host:port...]`, also the format of SLUICE_BOOTSTRAP. */
export function parseBootstrap(text: string): string[] {
  const endpoints = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
  if (endpoints.length === 0) throw new InvalidArgumentError('expected host:port[,host:port...]')
  for (const e of endpoints) {
    const colon = e.lastIndexOf(':')
    const port = Number(e.slice(colon + 1))
    if (colon <= 0 || !Number.isInteger(port) || port < 1 || port > 65535 || !/^\d+$/.test(e.slice(colon + 1))) {
      throw new InvalidArgumentError(`"${e}" is not host:port with a port from 1 to 65535`)
    }
  }
  return endpoints
}

/** An integer in [min, max], written in decimal. */
export function intParser(min: number, max = Number.MAX_SAFE_INTEGER): (text: string) => number {
  return (text: string): number => {
    if (!/^-?\d+$/.test(text.trim())) throw new InvalidArgumentError(`"${text}" is not an integer`)
    const n = Number(text)
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(
        max === Number.MAX_SAFE_INTEGER ? `must be at least ${min}` : `must be from ${min} to ${max}`,
      )
    }
    return n
  }
}

/** A non-negative offset as a bigint (offsets can pass 2^53). */
export function parseOffset(text: string): bigint {
  if (!/^\d+$/.test(text.trim())) throw new InvalidArgumentError(`"${text}" is not a non-negative integer offset`)
  return BigInt(text.trim())
}

export const parsePort = intParser(0, 65535)

/** Repeatable `--config k=v`: accumulates into one object. */
export function parseConfigPair(text: string, previous: Record<string, string> = {}): Record<string, string> {
  const eq = text.indexOf('=')
  if (eq <= 0) throw new InvalidArgumentError(`"${text}" is not key=value`)
  return { ...previous, [text.slice(0, eq).trim()]: text.slice(eq + 1) }
}

export type AcksOption = 0 | 1 | 'all'

export function parseAcks(text: string): AcksOption {
  switch (text.trim()) {
    case '0':
      return 0
    case '1':
      return 1
    case 'all':
    case '-1':
      return 'all'
    default:
      throw new InvalidArgumentError('must be 0, 1 or all')
  }
}

export const COMPRESSIONS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const
export type CompressionOption = (typeof COMPRESSIONS)[number]

export function parseCompression(text: string): CompressionOption {
  const c = COMPRESSIONS.find((x) => x === text.trim())
  if (c === undefined) throw new InvalidArgumentError(`must be one of ${COMPRESSIONS.join(', ')}`)
  return c
}

/** Milliseconds since the epoch, or an ISO-8601 date/time (`2024-05-01T12:00:00Z`). */
export function parseTimestamp(text: string): bigint {
  const t = text.trim()
  if (/^\d+$/.test(t)) return BigInt(t)
  // Only accept strings that look like dates: Date.parse is lenient about everything else.
  if (/^\d{4}-\d{2}-\d{2}/.test(t)) {
    const ms = Date.parse(t)
    if (Number.isFinite(ms)) return BigInt(ms)
  }
  throw new InvalidArgumentError(`"${text}" is neither milliseconds since the epoch nor an ISO-8601 time`)
}

export function parseSeparator(text: string): string {
  if (text === '') throw new InvalidArgumentError('the separator must not be empty')
  return text
}
