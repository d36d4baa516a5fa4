/**
 * Retry and dead-letter for run() (Kafka has neither): a failing callback is called again after
 * `backoffMs`, `attempts` times in total. When the last attempt fails:
 * - with a dead-letter topic (eachMessage only), the record is produced there with acks=all —
 *   key, value, timestamp and headers unchanged, plus the DLQ_HEADERS naming where it came from,
 *   the last error and the attempt count — and counts as processed only once that write is
 *   acknowledged; if the write fails, that error ends the run instead;
 * - otherwise the last error is returned to the caller, which ends the run.
 * So no record is ever silently dropped.
 */
import type { RecordHeader } from '@sluice/protocol'
import { sleep } from '../../retry.js'
import type { Producer } from '../../producer/producer.js'
import type { ConsumerMessage } from '../consumer-types.js'
import type { RetryPolicy } from './group-types.js'

export const DLQ_HEADERS = {
  topic: 'sluice.dlq.source.topic',
  partition: 'sluice.dlq.source.partition',
  offset: 'sluice.dlq.source.offset',
  error: 'sluice.dlq.error',
  attempts: 'sluice.dlq.attempts',
} as const

/** Longest error text kept in the header. */
const ERROR_HEADER_CHARS = 2048

export type Attempt = { ok: true } | { ok: false; error: unknown; attempts: number } | { ok: 'stopped' }

/** Calls `fn` up to policy.attempts times; 'stopped' when the signal aborts during a backoff. */
export async function withAttempts(
  fn: () => Promise<void> | void,
  policy: RetryPolicy | undefined,
  signal: AbortSignal,
): Promise<Attempt> {
  const attempts = policy?.attempts ?? 1
  let error: unknown
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      await fn()
      return { ok: true }
    } catch (err) {
      error = err
    }
    if (attempt < attempts) {
      try {
        await sleep(policy!.backoffMs, signal)
      } catch {
        return { ok: 'stopped' }
      }
    }
  }
  return { ok: false, error, attempts }
}

export function errorText(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err)
  return text.length > ERROR_HEADER_CHARS ? text.slice(0, ERROR_HEADER_CHARS) : text
}

/** The dead-letter copy's headers: the record's own, then the DLQ_HEADERS. */
export function deadLetterHeaders(m: ConsumerMessage, error: unknown, attempts: number): RecordHeader[] {
  return [
    ...m.headers,
    { key: DLQ_HEADERS.topic, value: Buffer.from(m.topic) },
    { key: DLQ_HEADERS.partition, value: Buffer.from(String(m.partition)) },
    { key: DLQ_HEADERS.offset, value: Buffer.from(m.offset.toString()) },
    { key: DLQ_HEADERS.error, value: Buffer.from(errorText(error)) },
    { key: DLQ_HEADERS.attempts, value: Buffer.from(String(attempts)) },
  ]
}

/** Produces the failed record to the dead-letter topic; resolves once acknowledged (acks all). */
export async function sendToDeadLetter(
  producer: Producer,
  topic: string,
  m: ConsumerMessage,
  error: unknown,
  attempts: number,
): Promise<void> {
  await producer.send({
    topic,
    records: [{ key: m.key, value: m.value, timestamp: m.timestamp, headers: deadLetterHeaders(m, error, attempts) }],
  })
}
