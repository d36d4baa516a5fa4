/**
 * Admin `deleteRecords` (Broker.DeleteRecords on each partition's leader): moves the log start
 * offset of partitions up to an offset ('high-watermark' = everything readable). One unary call
 * per leader broker. The operation is idempotent (a start offset only moves forward), so an
 * attempt in which some partition failed retriably (leader moved, broker unreachable) is retried
 * whole after a metadata refresh, per the client's retry policy. All-or-error like the other
 * admin batch calls: non-retriable per-partition errors come back as one SluiceError listing them.
 */
import { SluiceError, toBigInt, toInt64String, type wire } from '@sluice/protocol'
import type { ConnectionPool } from '../network/connection-pool.js'
import type { MetadataCache } from '../network/metadata-cache.js'
import { callUnary } from '../network/unary.js'
import type { ResolvedConnectOptions } from '../options.js'
import { withRetry } from '../retry.js'
import type { DeletedRecords, DeleteRecordsTarget } from './admin-types.js'

type Answer = bigint | SluiceError

export async function deleteRecords(
  cache: MetadataCache,
  pool: ConnectionPool,
  options: ResolvedConnectOptions,
  targets: DeleteRecordsTarget[],
  timeoutMs: number,
): Promise<DeletedRecords[]> {
  if (!Array.isArray(targets))
    throw new TypeError('deleteRecords() needs an array of { topic, partition, beforeOffset }')
  const items = targets.map((t) => {
    if (
      t === null ||
      typeof t !== 'object' ||
      typeof t.topic !== 'string' ||
      !Number.isInteger(t.partition) ||
      t.partition < 0
    ) {
      throw new TypeError('every deleteRecords target needs a topic and a partition number')
    }
    const offset = t.beforeOffset === 'high-watermark' ? -1n : BigInt(t.beforeOffset)
    if (offset < -1n)
      throw new TypeError(`beforeOffset must be >= 0 or 'high-watermark', got ${String(t.beforeOffset)}`)
    return { topic: t.topic, partition: t.partition, offset }
  })
  const answers = await withRetry(
    async () => {
      await cache.topicsOf([...new Set(items.map((i) => i.topic))])
      const got = await attempt(cache, pool, items, timeoutMs)
      const retriable = [...got.values()].find((a): a is SluiceError => a instanceof SluiceError && a.retriable)
      if (retriable !== undefined) throw retriable
      return got
    },
    {
      retry: options.retry,
      operation: 'deleteRecords',
      onRetry: async () => {
        await cache.refresh().catch(() => {})
      },
    },
  )
  const failed = items.flatMap((i) => {
    const a = answers.get(key(i.topic, i.partition))
    return a instanceof SluiceError
      ? [{ topic: i.topic, partition: i.partition, code: a.code, message: a.message }]
      : []
  })
  if (failed.length > 0) {
    throw new SluiceError(
      failed[0]!.code,
      `deleteRecords failed for ${failed.length} of ${items.length} partition(s): ` +
        failed.map((f) => `${f.topic}/${f.partition}: ${f.code} (${f.message})`).join('; '),
      { errors: failed },
    )
  }
  return items.map((i) => ({
    topic: i.topic,
    partition: i.partition,
    lowWatermark: answers.get(key(i.topic, i.partition)) as bigint,
  }))
}

const ANSWER_MARGIN_MS = 2000

function key(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`
}

async function attempt(
  cache: MetadataCache,
  pool: ConnectionPool,
  items: Array<{ topic: string; partition: number; offset: bigint }>,
  timeoutMs: number,
): Promise<Map<string, Answer>> {
  const answers = new Map<string, Answer>()
  const byBroker = new Map<number, typeof items>()
  for (const i of items) {
    const info = cache.partitionInfo(i.topic, i.partition)
    const leader = cache.leaderOf(i.topic, i.partition)
    if (info === undefined) {
      answers.set(
        key(i.topic, i.partition),
        new SluiceError('UNKNOWN_TOPIC_OR_PARTITION', `${i.topic} has no partition ${i.partition}`),
      )
    } else if (leader === undefined) {
      answers.set(
        key(i.topic, i.partition),
        new SluiceError('LEADER_NOT_AVAILABLE', `no leader for ${i.topic}/${i.partition}`),
      )
    } else {
      byBroker.set(leader.brokerId, [...(byBroker.get(leader.brokerId) ?? []), i])
    }
  }
  await Promise.all(
    [...byBroker].map(async ([brokerId, list]) => {
      const topics = new Map<string, wire.DeleteRecordsPartition[]>()
      for (const i of list)
        topics.set(i.topic, [
          ...(topics.get(i.topic) ?? []),
          { partition: i.partition, offset: toInt64String(i.offset) },
        ])
      const req: wire.DeleteRecordsRequest = {
        timeout_ms: timeoutMs,
        topics: [...topics].map(([topic, partitions]) => ({ topic, partitions })),
      }
      try {
        const client = pool.brokerClient(cache.brokers.get(brokerId)!.endpoint)
        // The broker answers REQUEST_TIMED_OUT itself at timeout_ms (followers did not catch up):
        // the call's deadline leaves room for that typed answer to arrive.
        const res = await callUnary<wire.DeleteRecordsResponse__Output>(
          (o, cb) => client.DeleteRecords(req, o, cb),
          timeoutMs + ANSWER_MARGIN_MS,
        )
        for (const t of res.topics) {
          for (const p of t.partitions) {
            answers.set(
              key(t.topic, p.partition),
              p.error_code !== 0
                ? SluiceError.fromId(p.error_code, p.error_message, { topic: t.topic, partition: p.partition })
                : toBigInt(p.low_watermark),
            )
          }
        }
      } catch (err) {
        const e =
          err instanceof SluiceError ? err : new SluiceError('NETWORK_EXCEPTION', String(err), {}, { cause: err })
        for (const i of list) answers.set(key(i.topic, i.partition), e)
      }
    }),
  )
  for (const i of items) {
    if (!answers.has(key(i.topic, i.partition))) {
      answers.set(
        key(i.topic, i.partition),
        new SluiceError('UNKNOWN_SERVER_ERROR', 'the DeleteRecords response did not mention this partition'),
      )
    }
  }
  return answers
}
