/**
 * ListOffsets (broker.proto) for many partitions: one unary call per leader broker, answers per
 * partition. Timestamps follow the proto: -2 earliest, -1 latest, otherwise the first offset
 * whose timestamp is >= it (offset -1 when there is none).
 */
import { SluiceError, toBigInt, toInt64String, type wire } from '@sluice/protocol'
import type { ConnectionPool } from '../network/connection-pool.js'
import type { MetadataCache } from '../network/metadata-cache.js'
import { callUnary } from '../network/unary.js'
import type { RetryOptions } from '../options.js'
import { withRetry } from '../retry.js'
import { tpKey } from './subscription.js'

export const EARLIEST_TIMESTAMP = -2n
export const LATEST_TIMESTAMP = -1n

export interface OffsetQuery {
  topic: string
  partition: number
  timestamp: bigint
}
export type OffsetAnswer = { offset: bigint; timestamp: bigint } | SluiceError

export async function listOffsets(
  cache: MetadataCache,
  pool: ConnectionPool,
  queries: OffsetQuery[],
  options: { isolationLevel: number; timeoutMs: number },
): Promise<Map<string, OffsetAnswer>> {
  const answers = new Map<string, OffsetAnswer>()
  const byBroker = new Map<number, OffsetQuery[]>()
  for (const q of queries) {
    const leader = cache.leaderOf(q.topic, q.partition)
    if (leader === undefined) {
      answers.set(
        tpKey(q.topic, q.partition),
        new SluiceError('LEADER_NOT_AVAILABLE', `no known leader for ${q.topic}/${q.partition}`, {
          topic: q.topic,
          partition: q.partition,
        }),
      )
      continue
    }
    const list = byBroker.get(leader.brokerId) ?? []
    list.push(q)
    byBroker.set(leader.brokerId, list)
  }
  await Promise.all(
    [...byBroker].map(async ([brokerId, list]) => {
      const topics = new Map<string, wire.ListOffsetsPartition[]>()
      for (const q of list) {
        const l = topics.get(q.topic) ?? []
        l.push({ partition: q.partition, timestamp: toInt64String(q.timestamp), current_leader_epoch: -1 })
        topics.set(q.topic, l)
      }
      const req: wire.ListOffsetsRequest = {
        replica_id: -1,
        isolation_level: options.isolationLevel,
        topics: [...topics].map(([topic, partitions]) => ({ topic, partitions })),
      }
      try {
        const node = cache.brokers.get(brokerId)!
        const client = pool.brokerClient(node.endpoint)
        const res = await callUnary<wire.ListOffsetsResponse__Output>(
          (o, cb) => client.ListOffsets(req, o, cb),
          options.timeoutMs,
        )
        for (const t of res.topics) {
          for (const p of t.partitions) {
            answers.set(
              tpKey(t.topic, p.partition),
              p.error_code !== 0
                ? SluiceError.fromId(p.error_code, p.error_message, { topic: t.topic, partition: p.partition })
                : { offset: toBigInt(p.offset), timestamp: toBigInt(p.timestamp) },
            )
          }
        }
      } catch (err) {
        const e =
          err instanceof SluiceError ? err : new SluiceError('NETWORK_EXCEPTION', String(err), {}, { cause: err })
        for (const q of list) answers.set(tpKey(q.topic, q.partition), e)
      }
    }),
  )
  for (const q of queries) {
    const key = tpKey(q.topic, q.partition)
    if (!answers.has(key)) {
      answers.set(
        key,
        new SluiceError('UNKNOWN_SERVER_ERROR', 'the ListOffsets response did not mention this partition', {
          topic: q.topic,
          partition: q.partition,
        }),
      )
    }
  }
  return answers
}

/**
 * listOffsets under the client's retry policy: the partitions that failed are asked again (after
 * a metadata refresh when the error says metadata is stale) until every one has answered; throws
 * the final error when retrying gives up. Answers by tpKey.
 */
export async function listOffsetsWithRetry(
  cache: MetadataCache,
  pool: ConnectionPool,
  queries: OffsetQuery[],
  options: { isolationLevel: number; timeoutMs: number; retry: RetryOptions; operation: string },
): Promise<Map<string, { offset: bigint; timestamp: bigint }>> {
  const result = new Map<string, { offset: bigint; timestamp: bigint }>()
  let todo = queries
  await withRetry(
    async () => {
      const answers = await listOffsets(cache, pool, todo, options)
      const failed: OffsetQuery[] = []
      let firstErr: SluiceError | undefined
      for (const q of todo) {
        const key = tpKey(q.topic, q.partition)
        const a = answers.get(key)!
        if (a instanceof SluiceError) {
          failed.push(q)
          firstErr ??= a
        } else {
          result.set(key, a)
        }
      }
      todo = failed
      if (firstErr !== undefined) throw firstErr
    },
    {
      retry: options.retry,
      operation: options.operation,
      onRetry: async (err) => {
        if (err.staleMetadata) await cache.refresh().catch(() => {})
      },
    },
  )
  return result
}

export function seekTimestamp(target: 'beginning' | 'end' | { timestamp: number | bigint }): bigint {
  if (target === 'beginning') return EARLIEST_TIMESTAMP
  if (target === 'end') return LATEST_TIMESTAMP
  return BigInt(target.timestamp)
}
